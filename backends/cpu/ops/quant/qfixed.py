"""gemmlowp's fixed-point arithmetic (fixedpoint.h) as TFLite's integer kernels use it,
vectorized over int64 NumPy arrays holding int32 raw values.

A FixedPoint<int32, I> value is its raw int32; a product of FixedPoint<I> and FixedPoint<J> is
FixedPoint<I + J> with raw SaturatingRoundingDoublingHighMul(a, b); Rescale<D> of a value with I
integer bits is SaturatingRoundingMultiplyByPOT<I - D>; raw + and - wrap like int32.
"""
from __future__ import annotations

import numpy as np

from .qmath import (INT32_MAX, INT32_MIN, rounding_divide_by_pot,
                    saturating_rounding_doubling_high_mul, wrap_int32)

I64 = np.int64
srdhm = saturating_rounding_doubling_high_mul


def sat_mul_pot(x, exponent: int) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent>: a saturating left shift for exponent > 0
    (values beyond +-(2^(31-e) - 1) saturate), RoundingDivideByPOT for exponent < 0."""
    x = np.asarray(x, I64)
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (31 - exponent)) - 1
    out = wrap_int32(x << exponent)
    out = np.where(x > threshold, INT32_MAX, out)
    return np.where(x < -threshold, INT32_MIN, out)


def add(a, b) -> np.ndarray:
    return wrap_int32(np.asarray(a, I64) + np.asarray(b, I64))


def sub(a, b) -> np.ndarray:
    return wrap_int32(np.asarray(a, I64) - np.asarray(b, I64))


def bit_length(v: np.ndarray) -> np.ndarray:
    """Bit length of positive int64 values below 2^53 (exact through frexp)."""
    return np.frexp(np.asarray(v, I64).astype(np.float64))[1].astype(I64)


def inv_sqrt_multiplier_exp(values, reverse_shift: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """GetInvSqrtQuantizedMultiplierExp (internal/common.h) for int32 values >= 0: a multiplier
    and shift with 1/sqrt(value) ~ multiplier * 2^(shift_left - 31), from 5 Newton-Raphson steps
    on FixedPoint<int32, 3>. Values 0 and 1 give (INT32_MAX, 0)."""
    v = np.asarray(values, I64).copy()
    small = v <= 1
    v = np.where(small, 2, v)
    shift = np.full(v.shape, 11, I64)
    while True:
        big = v >= (1 << 29)
        if not big.any():
            break
        v = np.where(big, v // 4, v)
        shift += big
    max_left_bits = (32 - bit_length(v)) - 1
    pairs = max_left_bits // 2 - 1
    shift -= pairs
    v = v << (2 * pairs)
    half_input = sat_mul_pot(v >> 1, -1)
    half_three = (1 << 28) + (1 << 27)
    x = np.full(v.shape, 1 << 28, I64)                   # F3::One()
    for _ in range(5):
        x3 = sat_mul_pot(srdhm(srdhm(x, x), x), 6)       # Rescale<3>(x * x * x), F9 -> F3
        x = sat_mul_pot(sub(srdhm(half_three, x), srdhm(half_input, x3)), 3)
    x = srdhm(x, 1518500250)                             # * sqrt(2) / 2 (F0)
    neg = shift < 0
    x = np.where(neg, wrap_int32(x << np.where(neg, -shift, 0)), x)
    shift = np.where(neg, 0, shift) * reverse_shift
    return np.where(small, INT32_MAX, x), np.where(small, 0, shift)
