"""Loop structure of TFLite's optimized binary kernels, for the quantized elementwise ops.

The optimized int8/uint8 ADD kernels run some output elements through NEON vector code (run
through NEON_2_SSE on x86; `vector_input` / `vector_output` reproduce its arithmetic) and the
rest through scalar code (the reference rounding, halves away from zero). Which elements go
where follows from `ProcessBroadcastShapes`: same shapes run one flat loop; a "fivefold"
broadcast runs the elementwise loop on every chunk of y4 contiguous elements (y4 > 1) or the
scalar-broadcast loop on chunks of y3 elements (y4 == 1); any other broadcast runs the
reference 6-D slow loop, scalar throughout. `loop_kinds` reproduces that split.
The optimized MUL kernels' vector lanes (`mul_vector_lanes`) are here too; the int16 wraps and
fixed-point multiply are qfixed's (`wrap16`, `srdhm16`).
"""
from __future__ import annotations

import numpy as np

from . import qmath
from .qfixed import wrap16

I64 = np.int64
NON_BROADCAST, FIVEFOLD, GENERIC = "non-broadcast", "fivefold", "generic"


def broadcast_plan(shape0, shape1) -> tuple[str, list[int]]:
    """(category, [y0, y1, y2, y3, y4]) as TFLite's ProcessBroadcastShapes computes them."""
    n = max(len(shape0), len(shape1))
    s0 = [1] * (n - len(shape0)) + list(shape0)
    s1 = [1] * (n - len(shape1)) + list(shape1)
    if s0 == s1:
        return NON_BROADCAST, [1, 1, 1, 1, 1]
    first = None
    for i in range(n - 1, -1, -1):
        if s0[i] == s1[i]:
            continue
        if s0[i] == 1:
            first = True
        elif s1[i] == 1:
            first = False
        break
    if first is None:
        return GENERIC, [1, 1, 1, 1, 1]
    a, b = (s0, s1) if first else (s1, s0)
    y = [1, 1, 1, 1, 1]
    i = n - 1
    # from the innermost axis: equal dims -> y4, a broadcast -> y3, equal -> y2, b broadcast
    # -> y1, equal -> y0; an axis left over makes the broadcast generic
    same, a_one, b_one = (lambda i: a[i] == b[i]), (lambda i: a[i] == 1), (lambda i: b[i] == 1)
    for k, takes in zip((4, 3, 2, 1, 0), (same, a_one, same, b_one, same)):
        while i >= 0 and takes(i):
            y[k] *= b[i] if a[i] == 1 else a[i]
            i -= 1
    return (GENERIC if i >= 0 else FIVEFOLD), y


def chunk_mask(total: int, chunk: int, width: int) -> np.ndarray:
    """Flat mask of the elements a `width`-lane loop handles in vector code when it runs over
    consecutive chunks of `chunk` elements (the last chunk % width of each chunk: scalar)."""
    pos = np.arange(total, dtype=I64) % max(chunk, 1)
    return pos < chunk - chunk % width


SCALAR, ELEMENTWISE, SCALAR_BROADCAST = 0, 1, 2


def loop_kinds(shape0, shape1, out_shape, elementwise_width: int,
               broadcast_width: int) -> np.ndarray | None:
    """Per output element, which loop of the optimized kernel computes it: ELEMENTWISE (vector
    lanes of the flat elementwise loop), SCALAR_BROADCAST (vector lanes of the scalar-broadcast
    loop) or SCALAR (loop tails, the generic slow broadcast, loops that are not vectorized: a
    width of 0). None when every element is scalar."""
    total = int(np.prod(out_shape, dtype=I64))
    category, y = broadcast_plan(shape0, shape1)
    if category == NON_BROADCAST:
        chunk, width, kind = total, elementwise_width, ELEMENTWISE
    elif category == GENERIC:
        return None
    elif y[4] > 1:
        chunk, width, kind = y[4], elementwise_width, ELEMENTWISE
    else:
        chunk, width, kind = y[3], broadcast_width, SCALAR_BROADCAST
    if width <= 0:
        return None
    mask = chunk_mask(total, chunk, width)
    if not mask.any():
        return None
    return np.where(mask, kind, SCALAR).astype(np.int8).reshape(out_shape)


def common_scale(s1: float, s2: float) -> tuple[float, tuple[int, int], tuple[int, int]]:
    """The rescale of two inputs into a common scale (add.cc / sub.cc / squared_difference.cc
    Prepare, double math on the float32 scales): twice_max = 2 * max(s1, s2) and each input's
    (multiplier, shift) of s_i / twice_max."""
    twice_max = 2.0 * max(s1, s2)
    m1, m2 = (tuple(int(v) for v in qmath.quantize_multiplier(s / twice_max)) for s in (s1, s2))
    return twice_max, m1, m2


def rescale_below_one(x: np.ndarray, multiplier, shift) -> np.ndarray:
    """MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0): the scalar loops' rescale,
    halves rounded away from zero in both steps."""
    return qmath.multiply_by_quantized_multiplier_smaller_than_one(x, multiplier, shift)


def doubling_high_mul_up(a, b) -> np.ndarray:
    """NEON vqrdmulh (as NEON_2_SSE emulates it): (2ab + 2^31) >> 32, i.e. the doubling high
    multiply with halves rounded UP (gemmlowp's scalar form rounds them away from zero)."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    r = (a * b + (1 << 30)) >> 31
    return np.where((a == qmath.INT32_MIN) & (b == qmath.INT32_MIN), qmath.INT32_MAX, r)


def shift_left(x: np.ndarray, n: int) -> np.ndarray:
    """vshlq_s32 by a scalar count: left shift with int32 wrap, or (n < 0) a truncating
    arithmetic right shift."""
    x = np.asarray(x, I64)
    return qmath.wrap_int32(x << n) if n >= 0 else x >> (-n)


def vector_input(x: np.ndarray, multiplier: int, shift: int, left_shift: int,
                 shift_first: bool) -> np.ndarray:
    """An input's rescale in the vector lanes (x = value + offset, shift <= 0).
    shift_first: int8 AddElementwiseInt8 folds the right shift into the left shift,
    vqrdmulh(x << (left_shift + shift), M); otherwise (uint8 loops, int8 scalar broadcast)
    vqrdmulh(x << left_shift, M) is followed by a plain arithmetic right shift (toward -inf)."""
    if shift_first:
        return doubling_high_mul_up(shift_left(x, left_shift + shift), multiplier)
    return doubling_high_mul_up(shift_left(x, left_shift), multiplier) >> (-shift)


def vector_output(raw: np.ndarray, multiplier: int, shift: int, offset: int,
                  dtype) -> np.ndarray:
    """The vector lanes' output rescale: vqrdmulh, gemmlowp's rounding divide (halves away from
    zero), narrowed to int16 without saturation (vmovn), the offset added in int16 (wrapping),
    then saturated to the 8-bit output type (vqmovn / vqmovun); the caller clamps."""
    v = qmath.rounding_divide_by_pot(doubling_high_mul_up(raw, multiplier), -shift)
    v = wrap16(wrap16(v) + offset)
    lo, hi = qmath.dtype_range(dtype)
    return np.clip(v, lo, hi)


def mul_vector_lanes(p: np.ndarray, multiplier: int, shift: int, offset: int, dtype,
                     saturate: bool = True) -> np.ndarray:
    """The optimized MUL kernels' vector arithmetic on products p: RoundingDivideByPOT(
    vqrdmulh(p << max(shift, 0), M), max(-shift, 0)), narrowed to int16 (`saturate`: whether
    that narrowing saturates, else it wraps), the offset added in int16 (wrapping), then
    saturated to the 8-bit type (core/ops/binary_arithmetic.py's docstring)."""
    v = doubling_high_mul_up(shift_left(p, max(shift, 0)), multiplier)
    v = qmath.rounding_divide_by_pot(v, max(-shift, 0))
    v = (np.clip(v, -32768, 32767) if saturate else wrap16(v)) + offset
    v = wrap16(v)
    lo, hi = qmath.dtype_range(dtype)
    return np.clip(v, lo, hi)
