"""gemmlowp's fixed-point arithmetic (fixedpoint.h) as TFLite's integer kernels use it,
vectorized over int64 NumPy arrays holding the raw int32 or int16 values.

A FixedPoint<int32, I> value is its raw int32; a product of FixedPoint<I> and FixedPoint<J> is
FixedPoint<I + J> with raw SaturatingRoundingDoublingHighMul(a, b); Rescale<D> of a value with I
integer bits is SaturatingRoundingMultiplyByPOT<I - D>; raw + and - wrap like int32.

FixedPoint<int16, I> (the int16 TANH / LOGISTIC kernels and the integer LSTM's
PortableApplySigmoid / PortableApplyTanh, the generic scalar code): the same with int16 raw
values (+ and - wrap like int16, the int16 SaturatingRoundingDoublingHighMul), constants given
as int32 raw values rounding-shifted right by 16 (RescaleConstantInitializer). gemmlowp's
logistic and tanh are pure int16 -> int16 maps, evaluated once over all 65536 inputs per number
of integer bits and then looked up (`sigmoid16`, `tanh16`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .qmath import (INT32_MAX, rounding_divide_by_pot,
                    saturating_rounding_doubling_high_mul, wrap_int32)

I64 = np.int64
srdhm = saturating_rounding_doubling_high_mul
MIN16, MAX16 = -32768, 32767


def sat_mul_pot(x, exponent: int, bits: int = 32) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent> on int`bits` values: a saturating left shift for
    exponent > 0 (values beyond +-(2^(bits-1-e) - 1) saturate), RoundingDivideByPOT for
    exponent < 0."""
    x = np.asarray(x, I64)
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (bits - 1 - exponent)) - 1
    top = (1 << (bits - 1)) - 1
    return np.where(x > threshold, top, np.where(x < -threshold, -top - 1, x << exponent))


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


# ------------------------------------------------------------------ int16
def wrap16(x) -> np.ndarray:
    """int16 wrap-around of int64 values (C++ narrowing of an int16 sum)."""
    return ((np.asarray(x, I64) + (1 << 15)) & 0xFFFF) - (1 << 15)


def trunc_div(x, d: int) -> np.ndarray:
    """C++ integer division (toward zero) of int64 values by a positive int."""
    x = np.asarray(x, I64)
    q = np.abs(x) // d
    return np.where(x < 0, -q, q)


def srdhm16(a, b) -> np.ndarray:
    """SaturatingRoundingDoublingHighMul<int16>: (a*b + nudge) / 2^15, truncated; (-2^15)^2
    saturates."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    ab = a * b
    hi = trunc_div(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15)
    return np.where((a == MIN16) & (b == MIN16), MAX16, hi)


def pot16(x, exponent: int) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent> on int16 values."""
    return sat_mul_pot(x, exponent, 16)


def const16(raw32: int) -> int:
    """An int32 fixed-point constant as gemmlowp gives it to int16 code."""
    return int(rounding_divide_by_pot(np.int64(raw32), 16))


def _exp_quarter(a) -> np.ndarray:
    """exp_on_interval_between_negative_one_quarter_and_0_excl, F0 -> F0: a Taylor expansion
    around -1/8 (ending with a saturating int16 add, AddSaturatingIf16Bit)."""
    constant_term, one_third = const16(1895147668), const16(715827883)   # exp(-1/8), 1/3
    x = wrap16(np.asarray(a, I64) + (1 << 12))                            # a + 1/8
    x2 = srdhm16(x, x)
    x3 = srdhm16(x2, x)
    x4 = srdhm16(x2, x2)
    poly = pot16(wrap16(srdhm16(wrap16(pot16(x4, -2) + x3), one_third) + x2), -1)
    return np.clip(constant_term + srdhm16(constant_term, wrap16(x + poly)), MIN16, MAX16)


_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
               (2, 39332535), (3, 720401), (4, 242))


def exp_on_negative_values16(a, ibits: int) -> np.ndarray:
    """exp_on_negative_values for FixedPoint<int16, ibits> a <= 0 -> F0."""
    a = np.asarray(a, I64)
    frac = 15 - ibits
    quarter = 1 << (frac - 2)
    a_mod_quarter_minus_quarter = wrap16((a & (quarter - 1)) - quarter)
    result = _exp_quarter(pot16(a_mod_quarter_minus_quarter, ibits))
    remainder = wrap16(a_mod_quarter_minus_quarter - a)
    for exponent, multiplier in _EXP_BARREL:
        if ibits > exponent:
            bit = (remainder & (1 << (frac + exponent))) != 0
            result = np.where(bit, srdhm16(result, const16(multiplier)), result)
    if ibits > 5:
        result = np.where(a < const16(-(1 << (36 - ibits))), 0, result)
    return np.where(a == 0, MAX16, result)


def _newton_reciprocal(a) -> np.ndarray:
    """The shared part of one_over_one_plus_x / one_minus_x_over_one_plus_x (F0 a in [0, 1]):
    x ~ 1 / half_denominator in F2 by three Newton-Raphson steps."""
    s = np.asarray(a, I64) + MAX16                                   # RoundingHalfSum(a, 1)
    half_denominator = trunc_div(s + np.where(s >= 0, 1, -1), 2)
    x = wrap16(const16(1515870810) + srdhm16(half_denominator, const16(-1010580540)))
    for _ in range(3):
        one_minus = wrap16((1 << 13) - srdhm16(half_denominator, x))
        x = wrap16(x + pot16(srdhm16(x, one_minus), 2))
    return x


def logistic16_eval(a, ibits: int) -> np.ndarray:
    """gemmlowp::logistic on FixedPoint<int16, ibits> raw values -> F0 raw values."""
    a = np.asarray(a, I64)
    positive = a > 0
    abs_a = np.where(positive, a, wrap16(-a))
    r = pot16(_newton_reciprocal(exp_on_negative_values16(wrap16(-abs_a), ibits)), 1)
    return np.where(a == 0, const16(1 << 30), np.where(positive, r, wrap16(MAX16 - r)))


def tanh16_eval(a, ibits: int) -> np.ndarray:
    """gemmlowp::tanh on FixedPoint<int16, ibits> raw values -> F0 raw values."""
    a = np.asarray(a, I64)
    negative = a < 0
    n = np.where(negative, a, wrap16(-a))
    t = pot16(wrap16(_newton_reciprocal(exp_on_negative_values16(n, ibits + 1)) - (1 << 13)), 2)
    return np.where(a == 0, 0, np.where(negative, wrap16(-t), t))


@lru_cache(maxsize=None)
def _table16(fn, ibits: int) -> np.ndarray:
    return fn(np.arange(MIN16, MAX16 + 1, dtype=I64), ibits)


def sigmoid16(x, ibits: int = 3) -> np.ndarray:
    """gemmlowp::logistic of FixedPoint<int16, ibits> raw values (int64), as F0 raw values."""
    return _table16(logistic16_eval, ibits)[np.asarray(x, I64) - MIN16]


def tanh16(x, ibits: int) -> np.ndarray:
    """gemmlowp::tanh of FixedPoint<int16, ibits> raw values (int64), as F0 raw values."""
    return _table16(tanh16_eval, ibits)[np.asarray(x, I64) - MIN16]
