"""Quantized int8 BATCH_MATMUL on acl_neon: the cpu kernel's exact GEMM (float32 through
NumPy's BLAS while every partial sum stays below 2^24, as qgemm.exact_matmul decides) and the
requantization in native code (module _quant's RequantPlan: TFLite's
MultiplyByQuantizedMultiplier with the reference rounding, qconv.ConvRequant's form with every
channel split off). Other forms (int16, the raw int32 output, a left-shifting multiplier, depths
where float32 is not exact) run the cpu kernel's own code.
"""
from __future__ import annotations

import numpy as np

from ...cpu.ops.quant.base import I8
from ...cpu.ops.quant.qconv import ConvRequant
from ...cpu.ops.quant.qgemm import Operand, dtype_bound, pick_float
from ...cpu.ops.quant.qmatmul import QBatchMatMulLayer
from .quant import QuantNeon, conv_requant, qregister


@qregister("BatchMatMul")
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
        self.native = None
        y = self.outputs[0]
        n = int(y.shape[-1]) if len(y.shape) else 0
        if self.raw or n < 1 or int(np.max(self.s)) > 0:
            return                      # the cpu kernel's path (see the module doc)
        rq = ConvRequant(self.m, self.s, np.zeros(n, np.int64), self.y_zp, self.lo, self.hi,
                         mode="q31", split=0)
        self.native = self.lib.RequantPlan(n, conv_requant(rq, n))
        self.acc = np.empty(tuple(int(d) for d in y.shape), np.int32)

    def run(self) -> None:
        if self.native is None:
            return QBatchMatMulLayer.run(self)
        a = self.buf(0)
        if self.adj_x:
            a = np.swapaxes(a, -1, -2)
        bop = self.bop if self.bop is not None else \
            Operand(self.rhs(self.buf(1)), self.b_zp, dtype_bound(I8, self.b_zp))
        aop = Operand(a, self.a_zp, self.a_bound)
        if pick_float(aop.depth, aop.amax, bop.amax) is not np.float32 \
                or self.acc.shape != self.out.shape:
            return QBatchMatMulLayer.run(self)
        np.copyto(self.acc, np.matmul(aop.as_float(np.float32), bop.as_float(np.float32)),
                  casting="unsafe")         # exact integers below 2^24
        self.native.run(self.acc, self.out, self.threads)
