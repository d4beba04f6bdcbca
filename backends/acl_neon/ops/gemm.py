"""Conv2D, FullyConnected, TransposeConv and BatchMatMul (float32) on acl_neon's packed GEMM
(module _gemm).

The cpu kernel validates; prepare() packs the constant weights (and bias) once into a native
plan, run() is one native call with the GIL released. The fused activation is a clamp in the
micro-kernel's store: Conv2D ignores TANH/SIGN_BIT as the interpreter does (cpu's
clamp_activation); FullyConnected and TransposeConv apply them, so those forms stay on cpu.
Weights must be constant float32 (hybrid int8-weight forms stay on cpu), tensors non-empty.
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from ....core.ops.base import CLAMPS
from ...cpu.ops.conv2d import Conv2DLayer
from ...cpu.ops.matmul import BatchMatMulLayer, FullyConnectedLayer
from ...cpu.ops.transpose_conv import TransposeConvLayer, transpose_padding
from .base import F32, NeonMixin, clamp_range, conv_geometry, register, size


def bias_array(kernel, index: int, count: int):
    """The bias as a contiguous float32 array (None when absent); its size is checked."""
    b = kernel.buf(index)
    if b is None:
        return None
    if b.size != count:
        raise kernel.fail(f"bias has {b.size} values, needs {count}")
    return np.ascontiguousarray(b, np.float32).reshape(-1)


class NeonGemm(NeonMixin):
    """The forms the GEMM plans compute: float32 input (`plan_input`) and output, constant
    float32 weights (input 1, DEFAULT format) and bias (input `bias_input`), non-empty tensors,
    and (when `acts` is given) a fused activation among them."""

    native_group = "gemm"
    bias_input = 2
    acts: tuple[str, ...] | None = None

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":      # FullyConnected's
            return False, f"acl_neon {op.type} reads DEFAULT weights only"
        ops = graph.operands
        w = op.inputs[1]
        b = op.inputs[cls.bias_input] if len(op.inputs) > cls.bias_input else -1
        if ops[op.inputs[cls.plan_input]].dtype != F32 or \
                any(ops[o].dtype != F32 for o in op.outputs):
            return False, f"acl_neon {op.type} computes float32 only"
        if ops[w].dtype != F32 or not ops[w].is_constant:
            return False, (f"acl_neon {op.type} needs constant float32 weights (hybrid or "
                           f"non-constant weights run on cpu)")
        if b >= 0 and (ops[b].dtype != F32 or not ops[b].is_constant):
            return False, f"acl_neon {op.type} needs a constant float32 bias"
        for i in (op.inputs[cls.plan_input], w, *op.outputs):
            if any(d <= 0 for d in ops[i].shape):
                return False, f"acl_neon {op.type} does not run on empty tensors"
        act = op.params.get("fused_activation_function", "NONE") or "NONE"
        if cls.acts is not None and act not in cls.acts:
            return False, f"acl_neon {op.type} fuses clamps only, not {act}"
        return True, ""


@register("Conv2D")
class NeonConv2D(NeonGemm, Conv2DLayer):
    def prepare(self) -> None:
        p = self.op.params
        w = self.buf(1)
        cout = w.shape[0]
        g = conv_geometry(p, self.buf(0).shape, w.shape[1:3], self.out.shape)
        lo, hi = clamp_range(p.fused_activation_function)
        geom = [g.n, g.h, g.w, g.c, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow,
                cout]
        self.plan = self.lib.ConvPlan(np.ascontiguousarray(w, np.float32),
                                      bias_array(self, self.bias_input, cout), geom, lo, hi)


@register("FullyConnected")
class NeonFullyConnected(NeonGemm, FullyConnectedLayer):
    acts = CLAMPS

    def prepare(self) -> None:
        w = self.buf(1)
        rows = self.buf(0).size // w.shape[1]
        lo, hi = clamp_range(self.op.params.fused_activation_function)
        if self.out.size != rows * w.shape[0]:
            raise self.fail(f"output {self.out.shape} does not hold {rows}x{w.shape[0]} values")
        self.plan = self.lib.FcPlan(np.ascontiguousarray(w, np.float32),
                                    bias_array(self, self.bias_input, w.shape[0]), rows, lo, hi)


@register("TransposeConv")
class NeonTransposeConv(NeonGemm, TransposeConvLayer):
    plan_input = 2
    bias_input = 3
    acts = CLAMPS

    def prepare(self) -> None:
        p = self.op.params
        w, x, y = self.buf(1), self.buf(2), self.out
        cout, kh, kw, cin = w.shape
        n, h, wd, _ = x.shape
        _, oh, ow, _ = y.shape
        top, left = transpose_padding(p.padding, oh, ow, kh, kw, p.stride_h, p.stride_w)
        lo, hi = clamp_range(p.get("fused_activation_function", "NONE"))
        geom = [n, h, wd, cin, kh, kw, p.stride_h, p.stride_w, 1, 1, top, left, oh, ow, cout]
        bias = bias_array(self, self.bias_input, cout)
        self.plan = self.lib.TransposeConvPlan(np.ascontiguousarray(w, np.float32), bias, geom,
                                               lo, hi)


@register("BatchMatMul")
class NeonBatchMatMul(NeonMixin, BatchMatMulLayer):
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

    def run(self) -> None:
        self.plan.run(self.buf(0), self.buf(1), self.out, self.threads)
