"""Quantized SQUARED_DIFFERENCE (int8 only: the interpreter refuses uint8 and int16) with the
interpreter's integer arithmetic, probed bit-exact on every int8 value pair
(tests/ops/test_q_mul.py).

squared_difference.cc Prepare (float32 scales, double math), left_shift = 7:
    twice_max = 2 * max(s1, s2)
    M1, M2 = QuantizeMultiplierSmallerThanOneExp(s1 / twice_max, s2 / twice_max)
    Mo = QuantizeMultiplierSmallerThanOneExp(twice_max^2 / (2^14 * s_out))
Eval (the reference kernel, scalar, for every shape and broadcast):
    x_i = MultiplyByQuantizedMultiplierSmallerThanOneExp((q_i - zp_i) << 7, M_i)
    out = MultiplyByQuantizedMultiplierSmallerThanOneExp((x1 - x2)^2, Mo) + zp_out, clamped to
    int8. Every rescale rounds halves away from zero.
The result depends only on the pair of input values, so it is tabulated on all 65536 pairs
(qpairtable; scalar loops only) and a run is one lookup.
An output multiplier >= 1 (output scale below twice_max^2 / 2^14) aborts the interpreter:
refused when the model is compiled.
Float form: backends/cpu/ops/elementwise.py (shared with the other backends:
core/ops/squared_difference.py).
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qmath, qpairtable
from .....core.quant.qbinary_math import common_scale, rescale_below_one
from .base import I8, QuantOpKernel, quantized, register

I64 = np.int64
LEFT_SHIFT = 7


@register("SquaredDifference", when=quantized)
class QSquaredDifferenceLayer(qpairtable.TabulatedBinary, QuantOpKernel):
    """SQUARED_DIFFERENCE of two int8 tensors (see the module docstring)."""

    dtypes = frozenset({I8})

    @classmethod
    def supports(cls, op, graph):
        a, b = (graph.operands[i] for i in op.inputs[:2])
        y = graph.operands[op.outputs[0]]
        if a.dtype != b.dtype or b.quant is None or y.dtype != a.dtype or y.quant is None:
            return False, "quantized SQUARED_DIFFERENCE needs int8 inputs and output"
        if any(t.quant.per_channel for t in (a, b, y)):
            return False, "quantized SQUARED_DIFFERENCE is per-tensor only"
        return super().supports(op, graph)

    def validate(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        s1, s2, so = self.scale(a), self.scale(b), self.scale(y)
        self.zp1, self.zp2, self.zpo = self.zero_point(a), self.zero_point(b), self.zero_point(y)
        twice_max, (self.m1, self.e1), (self.m2, self.e2) = common_scale(s1, s2)
        real_out = twice_max * twice_max / (float(1 << (2 * LEFT_SHIFT)) * so)
        if not real_out < 1.0:
            raise self.fail(f"int8 SQUARED_DIFFERENCE output scale {so} is too small for input "
                            f"scales {s1}, {s2} (output multiplier {real_out:.3g} >= 1; the "
                            f"interpreter aborts on it)")
        self.mo, self.eo = (int(v) for v in qmath.quantize_multiplier(real_out))
        self.tabulate(a.dtype, False)          # the reference kernel: scalar loops only

    def _compute(self, a: np.ndarray, b: np.ndarray, kinds, out: np.ndarray) -> None:
        """The exact arithmetic on raw inputs a, b into out (kinds: always None)."""
        x1 = rescale_below_one((a.astype(I64) - self.zp1) << LEFT_SHIFT, self.m1, self.e1)
        x2 = rescale_below_one((b.astype(I64) - self.zp2) << LEFT_SHIFT, self.m2, self.e2)
        d = x1 - x2
        r = rescale_below_one(d * d, self.mo, self.eo) + self.zpo
        qmath.clamp_cast(np.broadcast_to(r, out.shape), -128, 127, out.dtype, out=out)
