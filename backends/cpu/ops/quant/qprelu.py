"""Quantized PRELU on cpu (int8, uint8) with the interpreter's integer arithmetic (probed
exhaustively over every 8-bit value, halves away from zero). Float form: backends/cpu/ops/prelu.py
(shared with the other backends: core/ops/prelu.py).

PreluPrepare / BroadcastPrelu: M1 = QM(float32 s_in / s_out), M2 = QM(float32 s_in * s_alpha /
s_out); v = x - zp_in; y = zp_out + (v >= 0 ? MBQM(v, M1) : MBQM(v * (alpha - zp_alpha), M2)),
clamped; alpha broadcasts to the input's shape. int8 and uint8 only: the interpreter's int16
PRELU reads the int16 alpha buffer as int8 bytes (every odd element of a negative input gets the
high byte of an alpha), which is not reproduced — refused.
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qmath
from .....core.quant.qmath import multiply_by_quantized_multiplier as mbqm
from .....core.quant.qmath import quantize_multiplier_int as qmult
from .base import I8, I16, U8, QuantOpKernel, is_quantized, quantized, register

F32 = np.float32


@register("PReLU", when=quantized)
class QPReLULayer(QuantOpKernel):
    """PRELU of a quantized input with a quantized alpha (int8, uint8)."""

    dtypes = frozenset({I8, U8})

    @classmethod
    def supports(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if x.dtype == I16 and x.quant is not None:
            return False, ("int16 PRELU is refused: the interpreter reads its int16 alpha as "
                           "int8 bytes (not reproduced)")
        if len(op.inputs) > 1 and not is_quantized(graph, op.inputs[1]):
            return False, "quantized PRELU needs a quantized alpha"
        return super().supports(op, graph)

    def validate(self) -> None:
        x, alpha, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if not x.dtype == alpha.dtype == y.dtype:
            raise self.fail(f"quantized PRELU needs input, alpha and output of one type, not "
                            f"{x.dtype}, {alpha.dtype}, {y.dtype}")
        if any(t.quant.per_channel for t in (x, alpha, y)):
            raise self.fail("quantized PRELU is per-tensor only")
        xs, ys, as_ = F32(self.scale(x)), F32(self.scale(y)), F32(self.scale(alpha))
        self.xz, self.az, self.yz = self.zero_point(x), self.zero_point(alpha), \
            self.zero_point(y)
        self.m1, self.s1 = qmult(xs / ys)
        self.m2, self.s2 = qmult(F32(xs * as_) / ys)
        self.lo, self.hi = qmath.dtype_range(x.dtype)

    def prepare(self) -> None:
        x, alpha, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if tuple(y.shape) != tuple(x.shape) or \
                np.broadcast_shapes(x.shape, alpha.shape) != tuple(x.shape):
            raise self.fail(f"PRELU alpha {tuple(alpha.shape)} must broadcast to the input "
                            f"{tuple(x.shape)}, and the output keep the input's shape "
                            f"(got {tuple(y.shape)})")

    def run(self) -> None:
        v = self.inputs[0].buffer.astype(np.int64) - self.xz
        a = self.inputs[1].buffer.astype(np.int64) - self.az
        pos = v >= 0
        r = mbqm(np.where(pos, v, v * a), np.where(pos, self.m1, self.m2),
                 np.where(pos, self.s1, self.s2))
        qmath.clamp_cast(r + self.yz, self.lo, self.hi, self.outputs[0].dtype,
                         out=self.outputs[0].buffer)
