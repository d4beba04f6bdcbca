"""BATCH_MATMUL on acl_neon: float32 on the packed GEMM (module _gemm), both operands read at run
time; and the quantized int8 form: the exact GEMM of core/quant/qgemm (float32 through NumPy's
BLAS while every partial sum stays below 2^24, as qgemm.exact_matmul decides) with the
requantization in native code (module _quant's QRequantPlan: TFLite's
MultiplyByQuantizedMultiplier with the reference rounding, ConvRequant's form with every channel
split off). Other quantized forms (int16, the raw int32 output, a left-shifting multiplier,
depths where float32 is not exact) run the reference computation of core/ops/batch_matmul.py
(QBatchMatMulBase.compute), as cpu does.
"""
from __future__ import annotations

import numpy as np

from ....core.exec.native import _native, run_step, slot_of
from ....core.ir import Graph, Operation
from ....core.ops.batch_matmul import BatchMatMulBase, QBatchMatMulBase
from ....core.ops.conv2d import ConvRequant
from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8
from ....core.quant.qgemm import dtype_bound, pick_float
from .base import F32, NeonMixin, QuantNeon, register, size
from .quant_gemm import conv_requant


@register("BatchMatMul")
class BatchMatMulLayer(NeonMixin, BatchMatMulBase):
    """float32 BatchMatMul with both operands read at run time: the right-hand matrix is
    packed per batch (once per distinct one when the batch broadcasts), then the GEMM."""

    native_group = "gemm"

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ops = graph.operands
        for i in (*op.inputs[:2], *op.outputs):
            if ops[i].dtype != F32:
                return False, "acl_neon BatchMatMul computes float32 only"
            if any(d <= 0 for d in ops[i].shape):
                return False, "acl_neon BatchMatMul does not run on empty tensors"
        return True, ""

    def prepare(self) -> None:
        a, b, y = self.buf(0), self.buf(1), self.out
        p = self.op.params
        adj_x, adj_y = bool(p.get("adj_x", False)), bool(p.get("adj_y", False))
        m, k = a.shape[-1:-3:-1] if adj_x else a.shape[-2:]
        k2, n = b.shape[-1:-3:-1] if adj_y else b.shape[-2:]
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise self.fail(f"batch dimensions of {a.shape} and {b.shape} do not broadcast")
        if k != k2 or y.shape != (*batch, m, n):
            raise self.fail(f"{a.shape} x {b.shape} (adj_x={adj_x}, adj_y={adj_y}) does not "
                            f"give {y.shape}")
        a_count, b_count = size(a.shape[:-2]), size(b.shape[:-2])

        def index(count: int, shape) -> list[int]:     # each output batch's operand matrix
            return np.broadcast_to(np.arange(count).reshape(shape), batch).reshape(-1).tolist()

        self.plan = self.lib.BmmPlan([m, k, n], adj_x, adj_y, index(a_count, a.shape[:-2]),
                                     index(b_count, b.shape[:-2]), a_count, b_count)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]


@register("BatchMatMul", when=quantized)
class QBatchMatMulLayer(QuantNeon, QBatchMatMulBase):
    requant = None          # the bound requantization step (bind()); None: the reference

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
            return                      # the reference computation (see the module doc)
        rq = ConvRequant(self.m, self.s, np.zeros(n, np.int64), self.y_zp, self.lo, self.hi,
                         mode="q31", split=0)
        self.native = self.lib.QRequantPlan(size(y.shape) // n, n, conv_requant(rq, n))
        self.acc = np.empty(tuple(int(d) for d in y.shape), np.int32)

    def bind(self):
        """None: the GEMM runs in NumPy (run()). The requantization after it is a native
        step bound here, from the accumulators (self.acc, through a slot of its own) to the
        output."""
        self.requant = None if self.native is None else self.native.bind(
            _native.slot(self.acc), slot_of(self.outputs[0]), self.threads)
        return None

    def run(self) -> None:
        if self.requant is None:
            return self.compute()
        aop, bop = self.operands(self.b_bound)
        np.copyto(self.acc, np.matmul(aop.as_float(np.float32), bop.as_float(np.float32)),
                  casting="unsafe")         # exact integers below 2^24
        run_step(self.requant)
