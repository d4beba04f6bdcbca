"""TFLite's fixed-point arithmetic for quantized kernels, vectorized over NumPy int64 arrays.

Everything here reproduces tensorflow/lite/kernels/internal/common.h and quantization_util.cc
bit for bit, in the default build (no TFLITE_SINGLE_ROUNDING): a real multiplier becomes an
int32 fixed-point multiplier with a power-of-two shift (`quantize_multiplier`), and an int32
accumulator is rescaled by a saturating rounding doubling high multiply followed by a rounding
right shift (`multiply_by_quantized_multiplier`). Values are carried in int64 so that NumPy never
overflows where C++ would not; results are clamped to the output type by the callers.
"""
from __future__ import annotations

import numpy as np


INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
I64 = np.int64


def round_half_away(x) -> np.ndarray:
    """std::round / TfLiteRound: halves round away from zero (np.round rounds to even)."""
    x = np.asarray(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize_multiplier(real) -> tuple[np.ndarray, np.ndarray]:
    """(multiplier, shift) int64 arrays with real ~= multiplier * 2^(shift - 31), multiplier in
    [2^30, 2^31) (QuantizeMultiplier). Zero maps to (0, 0); tiny values (shift < -31) to (0, 0)."""
    real = np.asarray(real, np.float64)
    q, shift = np.frexp(real)
    fixed = round_half_away(q * float(1 << 31)).astype(I64)
    top = fixed == (1 << 31)
    fixed = np.where(top, fixed // 2, fixed)
    shift = np.where(top, shift + 1, shift).astype(I64)
    tiny = (shift < -31) | (real == 0)
    return np.where(tiny, 0, fixed).astype(I64), np.where(tiny, 0, shift).astype(I64)


def quantize_multiplier_int(real) -> tuple[int, int]:
    """quantize_multiplier of one real multiplier, as Python ints (a kernel's scalar constants)."""
    m, s = quantize_multiplier(float(real))
    return int(m), int(s)


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of int64 values into the int32 range (C++ int32 arithmetic)."""
    return ((np.asarray(x, I64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def saturating_rounding_doubling_high_mul(a, b) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int32 values held in int64."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    s = ab + nudge
    hi = np.where(s >= 0, s >> 31, -((-s) >> 31))        # C++ division truncates toward zero
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, hi)


def rounding_divide_by_pot(x, exponent) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT: x / 2^exponent, halves rounded away from zero."""
    x, exponent = np.asarray(x, I64), np.asarray(exponent, I64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x, multiplier, shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplier(int32 x, int32 multiplier, int shift): x * real multiplier
    rounded as TFLite does (left shift first, then high multiply, then rounding right shift).
    Per-channel multipliers broadcast against x."""
    x, shift = np.asarray(x, I64), np.asarray(shift, I64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    scaled = wrap_int32(x << left) if np.any(left) else x
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(scaled, multiplier), right)


def multiply_by_quantized_multiplier_vector(x, multiplier, shift) -> np.ndarray:
    """The optimized kernels' vector form of the same rescale (NEON vqrdmulh then vrshl; on x86
    the interpreter runs that NEON code through NEON_2_SSE): the final right shift rounds
    halves UP (toward +inf), not away from zero. Optimized loops apply it to whole vectors and
    the scalar MultiplyByQuantizedMultiplier to the tail: see `vector_part`. The high multiply
    here rounds halves away from zero (gemmlowp's, which ruy's FC output stage matches); a raw
    NEON vqrdmulh rounds them up instead (qbinary_math.doubling_high_mul_up), which differs on
    negative exact ties only."""
    x, shift = np.asarray(x, I64), np.asarray(shift, I64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    scaled = wrap_int32(x << left) if np.any(left) else x
    high = saturating_rounding_doubling_high_mul(scaled, multiplier)
    return (high + ((np.int64(1) << right) >> 1)) >> right


def vector_part(n: int, width: int) -> int:
    """How many of n elements an optimized loop of `width` lanes handles (the rest: scalar)."""
    return n - n % width


def multiply_by_quantized_multiplier_int64(x, multiplier, shift) -> np.ndarray:
    """The int64-accumulator overload (int16x8 kernels): the multiplier reduced to 16 bits with
    rounding, then one rounding right shift by 15 - shift."""
    x, multiplier, shift = np.asarray(x, I64), np.asarray(multiplier, I64), np.asarray(shift, I64)
    reduced = np.where(multiplier < 0x7FFF0000, (multiplier + (1 << 15)) >> 16, 0x7FFF)
    total = 15 - shift
    return (x * reduced + (np.int64(1) << (total - 1))) >> total


def multiply_by_quantized_multiplier_smaller_than_one(x, multiplier, shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplierSmallerThanOneExp: shift <= 0, no left shift."""
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier),
                                  -np.asarray(shift, I64))


def multiply_by_quantized_multiplier_greater_than_one(x, multiplier, left_shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplierGreaterThanOne: left shift (int32 wrap), high multiply."""
    x = wrap_int32(np.asarray(x, I64) << np.asarray(left_shift, I64))
    return saturating_rounding_doubling_high_mul(x, multiplier)


def dtype_range(dtype) -> tuple[int, int]:
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def activation_range(activation: str | None, scale: float, zero_point: int,
                     dtype) -> tuple[int, int]:
    """CalculateActivationRangeQuantized: the clamp [qmin, qmax] of a fused activation in the
    output's integer domain (f / scale rounded in float32, as TFLite does)."""
    qmin, qmax = dtype_range(dtype)

    def q(f: float) -> int:
        return int(zero_point) + int(round_half_away(np.float32(f) / np.float32(scale)))

    if activation in (None, "NONE"):
        return qmin, qmax
    if activation == "RELU":
        return max(qmin, q(0.0)), qmax
    if activation == "RELU6":
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    if activation == "RELU_N1_TO_1":
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    if activation == "RELU_0_TO_1":
        return max(qmin, q(0.0)), min(qmax, q(1.0))
    raise ValueError(f"fused activation {activation} has no quantized form")


def clamp_cast(x: np.ndarray, lo: int, hi: int, dtype, out: np.ndarray | None = None):
    """Clamp int64 `x` to [lo, hi] and store it as `dtype` (into `out` when given)."""
    x = np.clip(x, lo, hi)
    if out is None:
        return x.astype(dtype)
    np.copyto(out, x, casting="unsafe")
    return out
