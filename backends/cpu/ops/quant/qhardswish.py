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
The arithmetic: core/quant/qunary_math.py (hard_swish_params, hard_swish_q). Float form:
backends/cpu/ops/elementwise.py; the other quantized activations: qactivation.py.
"""
from __future__ import annotations

from .....core.quant.qlut_math import lookup, value_table
from .....core.quant.qunary_math import hard_swish_params, hard_swish_q
from .base import I8, U8, QuantOpKernel, quantized, register


@register("ElementwiseActivation.HARD_SWISH", when=quantized)
class QHardSwishLayer(QuantOpKernel):
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
