"""Quantized L2_NORMALIZATION (uint8, int8) as TFLite's l2norm.cc runs it (reference_ops /
reference_integer_ops L2Normalization, scalar code):

  acc = sum over the last axis of (q - zp)^2 (int32);
  M, shift = GetInvSqrtQuantizedMultiplierExp(acc, reverse_shift=-1): 1/sqrt(acc) by five
             Newton-Raphson steps in gemmlowp fixed point (3 integer bits), times sqrt(2)/2;
  uint8: out = 128 + MultiplyByQuantizedMultiplierSmallerThanOneExp(128 * (q - zp), M, shift),
         clamped to [0, 255];
  int8:  out = MultiplyByQuantizedMultiplier(q - zp, M, shift + 7), clamped to [-128, 127].
TFLite's Prepare requires output scale 1/128 and zero point 128 (uint8) / 0 (int8), and no fused
activation; those are refused here the same way. Everything is vectorized over the rows.
"""
from __future__ import annotations

import numpy as np

from . import qmath
from .base import I8, U8, QuantKernel, qregister

I64 = np.int64
INT32_MIN, INT32_MAX = qmath.INT32_MIN, qmath.INT32_MAX


def _sat_shift_left(x: np.ndarray, k: int) -> np.ndarray:
    """gemmlowp SaturatingRoundingMultiplyByPOT<k> for k > 0 (saturating left shift)."""
    return np.where(x > (INT32_MAX >> k), INT32_MAX, np.where(x < (INT32_MIN >> k), INT32_MIN,
                                                              x << k))


def _mul(a: np.ndarray, b) -> np.ndarray:
    """gemmlowp fixed-point product (raw SaturatingRoundingDoublingHighMul)."""
    return qmath.saturating_rounding_doubling_high_mul(a, b)


def inv_sqrt_multiplier(acc: np.ndarray, reverse_shift: int = -1):
    """GetInvSqrtQuantizedMultiplierExp, vectorized: (multiplier, shift) int64 arrays."""
    x = np.asarray(acc, I64).copy()
    small = x <= 1
    x = np.where(small, 4, x)
    shift = np.full(x.shape, 11, I64)
    while np.any(x >= (1 << 29)):
        big = x >= (1 << 29)
        x = np.where(big, x // 4, x)
        shift += big
    clz = 32 - np.floor(np.log2(np.maximum(x, 1))).astype(I64) - 1     # x < 2^29: exact
    pairs = (clz - 1) // 2 - 1
    shift -= pairs
    x = x << (2 * pairs)
    f_in = x >> 1
    half_in = qmath.rounding_divide_by_pot(f_in, 1)
    half_three = (1 << 28) + (1 << 27)
    v = np.full(x.shape, 1 << 28, I64)
    for _ in range(5):
        x3 = _sat_shift_left(_mul(_mul(v, v), v), 6)
        d = qmath.wrap_int32(_mul(half_three, v) - _mul(half_in, x3))
        v = _sat_shift_left(d, 3)
    v = _mul(v, 1518500250)
    neg = shift < 0
    v = np.where(neg, qmath.wrap_int32(v << np.where(neg, -shift, 0)), v)
    shift = np.where(neg, 0, shift)
    return np.where(small, INT32_MAX, v), np.where(small, 0, shift * reverse_shift)


@qregister("L2Normalization")
class QL2Normalization(QuantKernel):
    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized L2_NORMALIZATION needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        want_zp = 128 if y.dtype == U8 else 0
        if self.scale(y) != np.float32(1 / 128) or self.zero_point(y) != want_zp:
            raise self.fail(f"quantized L2_NORMALIZATION needs output scale 1/128 and zero "
                            f"point {want_zp}, got {self.scale(y)} and {self.zero_point(y)}")
        act = self.op.params.get("fused_activation_function")
        if act not in (None, "NONE"):
            raise self.fail(f"quantized L2_NORMALIZATION has no fused activation ({act})")
        self.zp = self.zero_point(x)

    def run(self) -> None:
        x = self.inputs[0].buffer
        d = x.astype(I64) - self.zp
        acc = qmath.wrap_int32(np.sum(d * d, axis=-1, keepdims=True))
        m, s = inv_sqrt_multiplier(acc)
        if x.dtype == U8:
            r = qmath.multiply_by_quantized_multiplier_smaller_than_one(128 * d, m, s)
            out = np.clip(128 + r, 0, 255)
        else:
            out = np.clip(qmath.multiply_by_quantized_multiplier(d, m, s + 7), -128, 127)
        np.copyto(self.outputs[0].buffer, out, casting="unsafe")
