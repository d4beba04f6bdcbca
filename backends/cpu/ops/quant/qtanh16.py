"""Quantized int16 TANH and LOGISTIC, bit-exact with the interpreter's fixed-point path
(activations.cc TanhPrepare / SigmoidPrepare, int16 branch, kGenericOptimized):

  Prepare: CheckedLog2(scale) (float32: logf(scale) * (1 / logf(2)), "power of two" when the
          rounded log2 is within 1e-3) on the input and the output; the output must be 2^-15
          (LOGISTIC: exactly 1/32768) with zero point 0, the input zero point 0.
          input_left_shift = 12 + log2(input scale); scales within CheckedLog2's tolerance of
          a power of two count as that power (the interpreter ignores the difference).
          TANH takes the fixed-point path for input_left_shift 0 or 1, LOGISTIC for 0 only.
  Eval:   optimized_ops::Tanh / Logistic on int16: the input raw value (times 2 with a saturating
          SaturatingRoundingMultiplyByPOT<1> when input_left_shift is 1) is a gemmlowp
          FixedPoint<int16_t, 3>, and the output raw value is gemmlowp::tanh / gemmlowp::logistic
          of it (FixedPoint<int16_t, 0>).

gemmlowp's int16 arithmetic (fixedpoint.h) as it runs there: products are
SaturatingRoundingDoublingHighMul (halves rounded up), POT rescales are saturating left shifts or
RoundingDivideByPOT (halves away from zero), + and - wrap like int16, constants are the int32
constants rounded to 16 bits. The vector (SSE/NEON) and scalar forms of these primitives agree on
every value these functions reach: checked against the interpreter on all 65536 inputs, at vector
and tail positions alike. The result depends on the input value only, so the kernel is a
65536-entry table built at compile time.

Other int16 input scales make the interpreter use a constant 16-bit sigmoid table
(reference_integer_ops::Tanh/Logistic with an input multiplier) that no formula regenerates; they
are refused at compile time.
"""
from __future__ import annotations

import numpy as np

from . import qlut_math as qm
from .base import I8, I16, U8, QuantKernel, qregister
from .qdispatch import ByDtype
from .qlut import QLogistic, QTanh
from .qmath import rounding_divide_by_pot

I64 = np.int64
F32 = np.float32
MAX16, MIN16 = 32767, -32768


# ------------------------------------------------------------------ int16 gemmlowp primitives
def wrap16(x) -> np.ndarray:
    """int16 wrap-around of int64 values (C++ narrowing of an int16 sum)."""
    return ((np.asarray(x, I64) + (1 << 15)) & 0xFFFF) - (1 << 15)


def srdhm16(a, b) -> np.ndarray:
    """SaturatingRoundingDoublingHighMul<int16>: (a*b + nudge) / 2^15, truncated; (-2^15)^2
    saturates."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    ab = a * b
    s = ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    hi = np.where(s >= 0, s >> 15, -((-s) >> 15))
    return np.where((a == MIN16) & (b == MIN16), MAX16, hi)


def sat_mul_pot16(x, exponent: int) -> np.ndarray:
    """SaturatingRoundingMultiplyByPOT<exponent> on int16 values."""
    x = np.asarray(x, I64)
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (15 - exponent)) - 1
    out = wrap16(x << exponent)
    out = np.where(x > threshold, MAX16, out)
    return np.where(x < -threshold, MIN16, out)


def const16(raw32: int) -> int:
    """An int32 fixed-point constant as gemmlowp gives it to int16 code (RescaleConstantInitializer:
    RoundingDivideByPOT by 16, then int16)."""
    return int(wrap16(rounding_divide_by_pot(np.int64(raw32), 16)))


def rounding_half_sum16(a, b) -> np.ndarray:
    s = np.asarray(a, I64) + np.asarray(b, I64)
    t = s + np.where(s >= 0, 1, -1)
    return np.where(t >= 0, t // 2, -((-t) // 2))


# ------------------------------------------------------------------ gemmlowp functions (int16)
_EXP_BARREL = [(-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
               (2, 39332535), (3, 720401), (4, 242)]


def exp_on_interval_between_negative_one_quarter_and_0_excl(a) -> np.ndarray:
    """F0 -> F0: exp(a) by a Taylor expansion around -1/8."""
    constant_term = const16(1895147668)              # exp(-1/8)
    one_third = const16(715827883)
    x = wrap16(np.asarray(a, I64) + (1 << 12))        # a + 1/8
    x2 = srdhm16(x, x)
    x3 = srdhm16(x2, x)
    x4 = srdhm16(x2, x2)
    x4_over_4 = sat_mul_pot16(x4, -2)
    poly = sat_mul_pot16(wrap16(srdhm16(wrap16(x4_over_4 + x3), one_third) + x2), -1)
    return np.clip(constant_term + srdhm16(constant_term, wrap16(x + poly)), MIN16, MAX16)


def exp_on_negative_values(a, integer_bits: int) -> np.ndarray:
    """FixedPoint<int16, integer_bits> (a <= 0) -> F0."""
    assert integer_bits <= 5
    a = np.asarray(a, I64)
    frac = 15 - integer_bits
    quarter = 1 << (frac - 2)
    a_mod_quarter_minus_quarter = wrap16((a & (quarter - 1)) - quarter)
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        sat_mul_pot16(a_mod_quarter_minus_quarter, integer_bits))
    remainder = wrap16(a_mod_quarter_minus_quarter - a)
    for exponent, multiplier in _EXP_BARREL:
        if integer_bits > exponent:
            bit = (remainder & (1 << (frac + exponent))) != 0
            result = np.where(bit, srdhm16(result, const16(multiplier)), result)
    return np.where(a == 0, MAX16, result)


def _newton_reciprocal(a) -> np.ndarray:
    """The shared part of one_over_one_plus_x / one_minus_x_over_one_plus_x (F0 a in [0, 1]):
    x ~ 1 / half_denominator in F2 by three Newton-Raphson steps."""
    half_denominator = rounding_half_sum16(a, MAX16)
    x = wrap16(const16(1515870810) + srdhm16(half_denominator, const16(-1010580540)))
    for _ in range(3):
        one_minus = wrap16((1 << 13) - srdhm16(half_denominator, x))
        x = wrap16(x + sat_mul_pot16(srdhm16(x, one_minus), 2))
    return x


def one_minus_x_over_one_plus_x_for_x_in_0_1(a) -> np.ndarray:
    return sat_mul_pot16(wrap16(_newton_reciprocal(a) - (1 << 13)), 2)


def one_over_one_plus_x_for_x_in_0_1(a) -> np.ndarray:
    return sat_mul_pot16(_newton_reciprocal(a), 1)


def tanh_f3(a) -> np.ndarray:
    """gemmlowp::tanh on FixedPoint<int16, 3> raw values -> F0 raw values."""
    a = np.asarray(a, I64)
    negative = a < 0
    n = np.where(negative, a, wrap16(-a))
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, 4))
    return np.where(a == 0, 0, np.where(negative, wrap16(-t), t))


def logistic_f3(a) -> np.ndarray:
    """gemmlowp::logistic on FixedPoint<int16, 3> raw values -> F0 raw values."""
    a = np.asarray(a, I64)
    positive = a > 0
    abs_a = np.where(positive, a, wrap16(-a))
    r = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(wrap16(-abs_a), 3))
    return np.where(a == 0, const16(1 << 30), np.where(positive, r, wrap16(MAX16 - r)))


# ------------------------------------------------------------------ kernels
def checked_log2(x: float) -> tuple[bool, int]:
    """CheckedLog2 (kernels/internal/common.h) in float32: (is a power of two, rounded log2)."""
    log2 = F32(qm.logf(F32(x)) * F32(F32(1) / qm.logf(F32(2))))
    rounded = qm.round_f32(log2)
    return bool(abs(F32(log2 - rounded)) < F32(1e-3)), int(rounded)


class _FixedPoint16(QuantKernel):
    dtypes = frozenset({I16})
    max_left_shift = 0
    exact_output_scale = False       # LOGISTIC: output scale == 1/32768, not just CheckedLog2
    fn = staticmethod(tanh_f3)

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        name = self.op.subtype
        if y.dtype != I16:
            raise self.fail(f"int16 {name}: input int16 and output {y.dtype} differ")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail(f"{name} is quantized per tensor only")
        if self.zero_point(x) or self.zero_point(y):
            raise self.fail(f"int16 {name} needs zero points 0 on input and output (input "
                            f"{self.zero_point(x)}, output {self.zero_point(y)})")
        pot, log2 = checked_log2(self.scale(y))
        if not pot or log2 != -15 or (self.exact_output_scale
                                      and np.float64(self.scale(y)) != 1.0 / 32768):
            raise self.fail(f"int16 {name} needs the output scale 1/32768, not {self.scale(y)}")
        pot, log2 = checked_log2(self.scale(x))
        shift = 12 + log2
        if not pot or not 0 <= shift <= self.max_left_shift:
            allowed = " or ".join(f"2^{s - 12}" for s in range(self.max_left_shift + 1))
            raise self.fail(
                f"int16 {name} is supported for the input scale {allowed} only (TFLite's "
                f"fixed-point path), not {self.scale(x)}: other scales use TFLite's constant "
                f"16-bit sigmoid table, which is not reproduced here")
        raw = np.arange(MIN16, MAX16 + 1, dtype=I64)
        self.table = self.fn(sat_mul_pot16(raw, shift)).astype(np.int16)   # by x + 32768

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.take(self.table, x.view(np.uint16) ^ np.uint16(0x8000), out=out)


class QTanh16(_FixedPoint16):
    max_left_shift = 1
    fn = staticmethod(tanh_f3)


class QLogistic16(_FixedPoint16):
    max_left_shift = 0
    exact_output_scale = True
    fn = staticmethod(logistic_f3)


@qregister("ElementwiseActivation.TANH")
class QTanhAny(ByDtype):
    impls = {I8: QTanh, U8: QTanh, I16: QTanh16}


@qregister("ElementwiseActivation.LOGISTIC")
class QLogisticAny(ByDtype):
    impls = {I8: QLogistic, U8: QLogistic, I16: QLogistic16}
