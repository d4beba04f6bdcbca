"""Integer arithmetic of TFLite's fully integer (8x8_16) LSTM, vectorized with NumPy.

* gemmlowp's FixedPoint<int16> logistic and tanh (fixedpoint.h, the generic scalar code that
  PortableApplySigmoid / PortableApplyTanh run): int16 raw values, + and - wrap like int16,
  products are the int16 SaturatingRoundingDoublingHighMul, constants given as int32 raw values
  are rounding-shifted right by 16 (RescaleConstantInitializer), the exp polynomial ends with a
  saturating int16 add (AddSaturatingIf16Bit). Both are pure int16 -> int16 maps, so they are
  evaluated once over all 65536 inputs and then looked up (`sigmoid16`, `tanh16`).
* `layer_norm`: PortableApplyLayerNorm (integer mean/variance, GetInvSqrtQuantizedMultiplierExp,
  int32 wrap where C++ wraps, division truncating toward zero).
Values are carried in int64 arrays holding the C++ int16/int32 values.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import qmath
from .qfixed import inv_sqrt_multiplier_exp

I64 = np.int64
rdbp = qmath.rounding_divide_by_pot
mbqm = qmath.multiply_by_quantized_multiplier
wrap32 = qmath.wrap_int32
ONE0 = 32767                       # FixedPoint<int16, 0>::One()


def wrap16(x) -> np.ndarray:
    return ((np.asarray(x, I64) + 32768) & 0xFFFF) - 32768


def clip16(x) -> np.ndarray:
    return np.clip(x, -32768, 32767)


def trunc_div(x, d: int) -> np.ndarray:
    """C++ integer division (toward zero) of int64 values by a positive int."""
    x = np.asarray(x, I64)
    q = np.abs(x) // d
    return np.where(x < 0, -q, q)


def srdhm16(a, b) -> np.ndarray:
    """SaturatingRoundingDoublingHighMul on int16 values."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    ab = a * b
    q = trunc_div(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15)
    return np.where((a == -32768) & (b == -32768), 32767, wrap16(q))


def pot16(x, exponent: int) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent> on int16 values."""
    x = np.asarray(x, I64)
    if exponent < 0:
        return rdbp(x, -exponent)
    if exponent == 0:
        return x
    threshold = (1 << (15 - exponent)) - 1
    return np.where(x > threshold, 32767, np.where(x < -threshold, -32768, x << exponent))


def const16(raw32: int) -> int:
    """A constant written as an int32 raw value, in the int16 format."""
    return int(rdbp(np.int64(raw32), 16))


def half_sum16(a, b) -> np.ndarray:
    s = np.asarray(a, I64) + np.asarray(b, I64)
    return trunc_div(s + np.where(s >= 0, 1, -1), 2)


def exp_quarter(a) -> np.ndarray:
    """exp(a) for a in [-1/4, 0), F0 -> F0."""
    ct, third = const16(1895147668), const16(715827883)
    x = wrap16(a + (1 << 12))
    x2 = srdhm16(x, x)
    x3 = srdhm16(x2, x)
    x4 = srdhm16(x2, x2)
    t = pot16(wrap16(srdhm16(wrap16(pot16(x4, -2) + x3), third) + x2), -1)
    return clip16(ct + srdhm16(ct, wrap16(x + t)))


BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
          (3, 720401), (4, 242))


def exp_negative(a, ibits: int) -> np.ndarray:
    """exp_on_negative_values for FixedPoint<int16, ibits> a <= 0 -> F0."""
    a = np.asarray(a, I64)
    frac = 15 - ibits
    quarter = 1 << (frac - 2)
    amq = wrap16((a & (quarter - 1)) - quarter)
    result = exp_quarter(pot16(amq, ibits))
    remainder = wrap16(amq - a)
    for exponent, mult in BARREL:
        if ibits > exponent:
            bit = (remainder & (1 << (frac + exponent))) != 0
            result = np.where(bit, srdhm16(result, const16(mult)), result)
    if ibits > 5:
        result = np.where(a < const16(-(1 << (36 - ibits))), 0, result)
    return np.where(a == 0, ONE0, result)


def _newton(a) -> np.ndarray:
    """The F2 Newton-Raphson reciprocal iterate of one_(minus_x_)over_one_plus_x."""
    half = half_sum16(a, ONE0)
    x = wrap16(const16(1515870810) + srdhm16(half, const16(-1010580540)))
    for _ in range(3):
        om = wrap16((1 << 13) - srdhm16(half, x))
        x = wrap16(x + pot16(srdhm16(x, om), 2))
    return x


def logistic16(a, ibits: int) -> np.ndarray:
    a = np.asarray(a, I64)
    pos = a > 0
    absolute = np.where(pos, a, wrap16(-a))
    rp = pot16(_newton(exp_negative(wrap16(-absolute), ibits)), 1)
    rn = wrap16(ONE0 - rp)
    return np.where(a == 0, const16(1 << 30), np.where(pos, rp, rn))


def tanh16_eval(a, ibits: int) -> np.ndarray:
    a = np.asarray(a, I64)
    neg = a < 0
    n = np.where(neg, a, wrap16(-a))
    t = pot16(wrap16(_newton(exp_negative(n, ibits + 1)) - (1 << 13)), 2)
    return np.where(a == 0, 0, np.where(neg, wrap16(-t), t))


ALL16 = np.arange(-32768, 32768, dtype=I64)


@lru_cache(maxsize=None)
def _table(kind: str, ibits: int) -> np.ndarray:
    fn = logistic16 if kind == "sigmoid" else tanh16_eval
    return fn(ALL16, ibits).astype(I64)


def sigmoid16(x) -> np.ndarray:
    """PortableApplySigmoid: logistic of FixedPoint<int16, 3> raw values, as F0 raw values."""
    return _table("sigmoid", 3)[np.asarray(x, I64) + 32768]


def tanh16(x, ibits: int) -> np.ndarray:
    """PortableApplyTanh(ibits): tanh of FixedPoint<int16, ibits> raw values (F0 raw)."""
    return _table("tanh", ibits)[np.asarray(x, I64) + 32768]


def layer_norm(x, weights, bias, scale_a: int, scale_b: int, variance_limit: int) -> np.ndarray:
    """PortableApplyLayerNorm over the last axis of int16 values x (rows: batches)."""
    x = np.asarray(x, I64)
    n = x.shape[-1]
    total = x.sum(axis=-1, keepdims=True)
    mean = trunc_div(total * 1024, n)
    variance = (x * x).sum(axis=-1, keepdims=True) * ((1 << 20) // n) - mean * mean
    variance2 = wrap32(trunc_div(variance, 1 << 20))
    variance2 = np.where(variance2 < 1, variance_limit, variance2)
    inv_a, inv_b = inv_sqrt_multiplier_exp(variance2, -1)
    rescaled = mbqm(wrap32(1024 * x - mean), inv_a, inv_b)
    val3 = wrap32(rescaled * np.asarray(weights, I64) + np.asarray(bias, I64))
    val4 = trunc_div(np.where(val3 > 0, val3 + 512, val3 - 512), 1024)
    return clip16(mbqm(val4, scale_a, scale_b + 12))


def quantize_multiplier(real) -> tuple[int, int]:
    m, s = qmath.quantize_multiplier(float(real))
    return int(m), int(s)


__all__ = ["sigmoid16", "tanh16", "layer_norm", "wrap16", "clip16", "quantize_multiplier",
           "mbqm", "rdbp", "wrap32"]
