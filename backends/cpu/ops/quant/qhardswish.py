"""Quantized HARD_SWISH (int8, uint8), bit-exact with the interpreter.

Matches activations.cc HardSwishPrepare + reference_ops::HardSwish, which is what the builtin
(optimized) kernel computes on x86 — checked on every input value at vector and tail positions:
int16 fixed point throughout, with the multipliers of HardSwishPrepare
  hires = (1/128f) * in_scale (float32), out_mult = hires / out_scale, reluish_mult =
  hires / (3/32768f) (float32 divisions), QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier,
and per element
  v = (x - zp) * 128; pre = SRDHM16(v, out_mult16);
  r = v, saturating left shift by reluish_exp - 1, SRDHM16, saturating left shift by 1 (or a
      rounding right shift by -reluish_exp); r = (r + 32768) >> 1;
  y = RoundingDivideByPOT(SaturatingDoublingHighMul(r, pre), -out_exp) + out_zp, clamped,
where SaturatingDoublingHighMul truncates (a * b / 2^15 toward zero) and RoundingDivideByPOT rounds
halves away from zero. A result depends on the input byte only, so the kernel is a 256-entry
table. The interpreter requires out_exp <= 0 (in_scale / out_scale below 128): refused
otherwise. int16 HARD_SWISH is refused by the interpreter and not here.
"""
from __future__ import annotations

import numpy as np

from .base import I8, U8, QuantKernel, quantized, register
from .....core.quant.qfixed import pot16, srdhm16
from .....core.quant.qlut_math import lookup, value_table
from .....core.quant.qmath import quantize_multiplier, rounding_divide_by_pot

F32 = np.float32
I64 = np.int64


def sdhm16(a, b) -> np.ndarray:
    """TFLite's SaturatingDoublingHighMul on int16 values (no rounding, truncation)."""
    ab = np.asarray(a, I64) * np.asarray(b, I64)
    high = np.where(ab >= 0, ab >> 15, -((-ab) >> 15))
    return np.where((a == -32768) & (b == -32768), 32767, high)


def downscale16(m: int) -> int:
    """DownScaleInt32ToInt16Multiplier."""
    return 32767 if m >= (1 << 31) - 1 - (1 << 15) else (m + (1 << 15)) >> 16


def hard_swish_params(in_scale: float, out_scale: float) -> tuple[int, int, int, int]:
    """(output multiplier int16, its exponent, reluish multiplier int16, its exponent)."""
    hires = F32(F32(1.0 / 128.0) * F32(in_scale))
    out_mult = F32(hires / F32(out_scale))
    reluish_mult = F32(hires / F32(3.0 / 32768.0))
    om, oe = (int(a) for a in quantize_multiplier(float(out_mult)))
    rm, re = (int(a) for a in quantize_multiplier(float(reluish_mult)))
    return downscale16(om), oe, downscale16(rm), re


def hard_swish_q(x, in_zp: int, out_zp: int, params, dtype) -> np.ndarray:
    """reference_ops::HardSwish on integer values `x`."""
    om, oe, rm, re = params
    v = (np.asarray(x, I64) - in_zp) * 128
    pre = srdhm16(v, om)
    r = v
    if re > 0:
        r = pot16(r, re - 1)
    r = srdhm16(r, rm)
    if re > 0:
        r = pot16(r, 1)
    if re < 0:
        r = rounding_divide_by_pot(r, -re)
    r = (r + (1 << 15)) >> 1
    out = rounding_divide_by_pot(sdhm16(r, pre), -oe) + out_zp
    info = np.iinfo(dtype)
    return np.clip(out, info.min, info.max).astype(dtype)


@register("ElementwiseActivation.HARD_SWISH", when=quantized)
class QHardSwish(QuantKernel):
    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.unary_operands()
        xs, ys = self.scale(x), self.scale(y)
        params = hard_swish_params(xs, ys)
        if params[1] > 0:
            raise self.fail(f"quantized HARD_SWISH needs an output scale above input scale / 128 "
                            f"(input scale {xs}, output scale {ys}): the interpreter refuses "
                            f"a multiplier input_scale / (128 * output_scale) >= 1")
        xz, yz = self.zero_point(x), self.zero_point(y)
        self.table = value_table(x.dtype, lambda v: hard_swish_q(v, xz, yz, params, x.dtype))

    def run(self) -> None:
        lookup(self.table, self.inputs[0].buffer, out=self.outputs[0].buffer)
