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

gemmlowp's int16 arithmetic is qfixed's (shared with the integer LSTM). Its vector (SSE/NEON)
and scalar forms agree on every value these functions reach: checked against the interpreter on
all 65536 inputs, at vector and tail positions alike. The result depends on the input value only, so the kernel is a
65536-entry table built at compile time.

Other int16 input scales make the interpreter use a constant 16-bit sigmoid table
(reference_integer_ops::Tanh/Logistic with an input multiplier) that no formula regenerates; they
are refused at compile time.
8-bit TANH and LOGISTIC: qactivation.py; float form: backends/cpu/ops/elementwise.py.
"""
from __future__ import annotations

import numpy as np

from .....core.quant.qfixed import pot16, sigmoid16, tanh16
from .....core.quant.qlut_math import checked_log2, lookup, value_table
from .base import I16, QuantOpKernel, quantized, register


class _FixedPoint16(QuantOpKernel):
    dtypes = frozenset({I16})
    max_left_shift = 0
    exact_output_scale = False       # LOGISTIC: output scale == 1/32768, not just CheckedLog2

    @staticmethod
    def fn(x):
        """gemmlowp's function of FixedPoint<int16, 3> raw values, F0 raw results."""
        raise NotImplementedError

    def validate(self) -> None:
        x, y = self.unary_operands()
        name = self.op.subtype
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
        self.table = value_table(I16, lambda v: self.fn(pot16(v, shift)))

    def run(self) -> None:
        lookup(self.table, self.inputs[0].buffer, out=self.outputs[0].buffer)


@register("ElementwiseActivation.TANH", dtypes=(I16,), when=quantized)
class QTanh16Layer(_FixedPoint16):
    max_left_shift = 1

    @staticmethod
    def fn(x):
        return tanh16(x, 3)


@register("ElementwiseActivation.LOGISTIC", dtypes=(I16,), when=quantized)
class QLogistic16Layer(_FixedPoint16):
    exact_output_scale = True
    fn = staticmethod(sigmoid16)
