"""Conv2D, FullyConnected and TransposeConv (float32) on acl_neon's packed GEMM (module _gemm).

The cpu kernel validates; prepare() packs the constant weights (and bias) once into a native
plan, run() is one native call with the GIL released. The fused activation is a clamp in the
micro-kernel's store: Conv2D ignores TANH/SIGN_BIT as the interpreter does (cpu's
clamp_activation); FullyConnected and TransposeConv apply them, so those forms stay on cpu.
Weights must be constant float32 (hybrid int8-weight forms stay on cpu), tensors non-empty.
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from ...cpu.ops.common import CLAMPS, conv_padding
from ...cpu.ops.conv2d import Conv2DLayer
from ...cpu.ops.matmul import FullyConnectedLayer
from ...cpu.ops.transpose_conv import TransposeConvLayer, transpose_padding
from .base import NeonMixin, register

F32 = np.dtype(np.float32)
INF = float("inf")
BOUNDS = {"NONE": (-INF, INF), "RELU": (0.0, INF), "RELU6": (0.0, 6.0),
          "RELU_N1_TO_1": (-1.0, 1.0)}


def clamp_bounds(name: str | None) -> tuple[float, float]:
    """(lo, hi) of a fused clamp activation; anything else (TANH, SIGN_BIT) clamps nothing."""
    return BOUNDS.get(name or "NONE", (-INF, INF))


def refuse_unless_packable(op: Operation, graph: Graph, x: int, w: int, b: int | None,
                           acts: tuple[str, ...] | None) -> tuple[bool, str]:
    """The forms the GEMM plans compute: float32 input, output, constant float32 weights and
    bias, non-empty tensors, and (when `acts` is given) an activation among them."""
    ops = graph.operands
    if graph.operands[x].dtype != F32 or any(ops[o].dtype != F32 for o in op.outputs):
        return False, f"acl_neon {op.type} computes float32 only"
    if ops[w].dtype != F32 or not ops[w].is_constant:
        return False, (f"acl_neon {op.type} needs constant float32 weights (hybrid or "
                       f"non-constant weights run on cpu)")
    if b is not None and b >= 0 and (ops[b].dtype != F32 or not ops[b].is_constant):
        return False, f"acl_neon {op.type} needs a constant float32 bias"
    for i in (x, w, *op.outputs):
        if any(d <= 0 for d in ops[i].shape):
            return False, f"acl_neon {op.type} does not run on empty tensors"
    act = op.params.get("fused_activation_function", "NONE") or "NONE"
    if acts is not None and act not in acts:
        return False, f"acl_neon {op.type} fuses clamps only, not {act}"
    return True, ""


def bias_array(kernel, index: int, count: int):
    """The bias as a contiguous float32 array (None when absent); its size is checked."""
    b = kernel.buf(index)
    if b is None:
        return None
    if b.size != count:
        raise kernel.fail(f"bias has {b.size} values, needs {count}")
    return np.ascontiguousarray(b, np.float32).reshape(-1)


@register("Conv2D")
class NeonConv2D(NeonMixin, Conv2DLayer):
    native_group = "gemm"

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        b = op.inputs[2] if len(op.inputs) > 2 else None
        return refuse_unless_packable(op, graph, op.inputs[0], op.inputs[1], b, None)

    def prepare(self) -> None:
        p = self.op.params
        x, w, y = self.buf(0), self.buf(1), self.out
        n, h, wd, cin = x.shape
        cout, kh, kw, _ = w.shape
        _, oh, ow, _ = y.shape
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, _, pl, _ = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        lo, hi = clamp_bounds(p.fused_activation_function)
        geom = [n, h, wd, cin, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cout]
        self.plan = self.lib.ConvPlan(np.ascontiguousarray(w, np.float32),
                                      bias_array(self, 2, cout), geom, lo, hi)

    def run(self) -> None:
        self.plan.run(self.inputs[0].buffer, self.outputs[0].buffer, self.threads)


@register("FullyConnected")
class NeonFullyConnected(NeonMixin, FullyConnectedLayer):
    native_group = "gemm"

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            return False, "acl_neon FullyConnected reads DEFAULT weights only"
        b = op.inputs[2] if len(op.inputs) > 2 else None
        return refuse_unless_packable(op, graph, op.inputs[0], op.inputs[1], b, CLAMPS)

    def prepare(self) -> None:
        w = self.buf(1)
        rows = self.buf(0).size // w.shape[1]
        lo, hi = clamp_bounds(self.op.params.fused_activation_function)
        if self.out.size != rows * w.shape[0]:
            raise self.fail(f"output {self.out.shape} does not hold {rows}x{w.shape[0]} values")
        self.plan = self.lib.FcPlan(np.ascontiguousarray(w, np.float32),
                                    bias_array(self, 2, w.shape[0]), rows, lo, hi)

    def run(self) -> None:
        self.plan.run(self.inputs[0].buffer, self.outputs[0].buffer, self.threads)


@register("TransposeConv")
class NeonTransposeConv(NeonMixin, TransposeConvLayer):
    native_group = "gemm"

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        b = op.inputs[3] if len(op.inputs) > 3 else None
        return refuse_unless_packable(op, graph, op.inputs[2], op.inputs[1], b, CLAMPS)

    def prepare(self) -> None:
        p = self.op.params
        w, x, y = self.buf(1), self.buf(2), self.out
        cout, kh, kw, cin = w.shape
        n, h, wd, _ = x.shape
        _, oh, ow, _ = y.shape
        top, left = transpose_padding(p.padding, oh, ow, kh, kw, p.stride_h, p.stride_w)
        lo, hi = clamp_bounds(p.get("fused_activation_function", "NONE"))
        geom = [n, h, wd, cin, kh, kw, p.stride_h, p.stride_w, 1, 1, top, left, oh, ow, cout]
        self.plan = self.lib.TransposeConvPlan(np.ascontiguousarray(w, np.float32),
                                               bias_array(self, 3, cout), geom, lo, hi)

    def run(self) -> None:
        self.plan.run(self.inputs[2].buffer, self.outputs[0].buffer, self.threads)
