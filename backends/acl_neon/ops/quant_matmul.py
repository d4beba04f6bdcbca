"""Quantized int8 BATCH_MATMUL on acl_neon: the cpu kernel's exact GEMM (float32 through
NumPy's BLAS while every partial sum stays below 2^24, as qgemm.exact_matmul decides) and the
requantization in native code (module _quant's RequantPlan: TFLite's
MultiplyByQuantizedMultiplier with the reference rounding, qconv.ConvRequant's form with every
channel split off). Other forms (int16, the raw int32 output, a left-shifting multiplier, depths
where float32 is not exact) run the cpu kernel's own code.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8
from ...cpu.ops.quant.qconv import ConvRequant
from ....core.quant.qgemm import dtype_bound, pick_float
from ...cpu.ops.quant.qmatmul import QBatchMatMulLayer
from .base import register
from .quant import QuantNeon, conv_requant


@register("BatchMatMul", when=quantized)
class NeonQBatchMatMul(QuantNeon, QBatchMatMulLayer):
    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        a, b = graph.operands[op.inputs[0]], graph.operands[op.inputs[1]]
        y = graph.operands[op.outputs[0]]
        if (a.dtype, b.dtype, y.dtype) != (I8, I8, I8):
            return False, "acl_neon quantized BatchMatMul: int8 inputs and output only"
        return True, ""

    def prepare(self) -> None:
        """The native path where it is exact for any inputs: right-shifting multiplier, and a
        float32 GEMM by the operands' dtype bounds (static shapes: the depth is known)."""
        self.native = None
        a, y = self.inputs[0], self.outputs[0]
        n = int(y.shape[-1]) if len(y.shape) else 0
        depth = int(a.shape[-2] if self.adj_x else a.shape[-1]) if len(a.shape) else 0
        self.b_bound = dtype_bound(I8, self.b_zp)
        bmax = self.bop.amax if self.bop is not None else self.b_bound
        if self.raw or n < 1 or int(np.max(self.s)) > 0 \
                or pick_float(depth, self.a_bound, bmax) is not np.float32:
            return                      # the cpu kernel's path (see the module doc)
        rq = ConvRequant(self.m, self.s, np.zeros(n, np.int64), self.y_zp, self.lo, self.hi,
                         mode="q31", split=0)
        self.native = self.lib.RequantPlan(n, conv_requant(rq, n))
        self.acc = np.empty(tuple(int(d) for d in y.shape), np.int32)

    def run(self) -> None:
        if self.native is None:
            return QBatchMatMulLayer.run(self)
        aop, bop = self.operands(self.b_bound)
        np.copyto(self.acc, np.matmul(aop.as_float(np.float32), bop.as_float(np.float32)),
                  casting="unsafe")         # exact integers below 2^24
        self.native.run(self.acc, self.out, self.threads)
