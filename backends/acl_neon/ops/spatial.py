"""Float32 spatial kernels on native code (module _spatial): `NeonSpatial`, the base of the
group's kernels, and DepthwiseConv2D. (Pool2D: pool2d.py; ResizeBilinear: resize.py;
L2Normalization, InstanceNorm, LocalResponseNormalization: norm.py.)

Each subclasses the cpu kernel of its op (the same validation), builds a native plan in
prepare() and makes one native call per run. Fused activations reach the native code as a clamp
range; a form computed here by no native kernel (a TANH or SIGN_BIT fused into a
normalization, empty tensors) is refused and falls back to cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from ....core.ops.base import CLAMPS
from ...cpu.ops.depthwise_conv2d import DepthwiseConv2DLayer
from .base import F32, NeonMixin, clamp_range, conv_geometry, register


class NeonSpatial(NeonMixin):
    native_group = "spatial"
    float_inputs: tuple[int, ...] = (0,)     # inputs that must be float32 when present
    rank: int | None = 4                     # required rank of input 0 (None: any)
    clamp_only = False                       # refuse fused activations other than clamps

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        for k in cls.float_inputs:
            i = op.inputs[k] if k < len(op.inputs) else -1
            if i >= 0 and graph.operands[i].dtype != F32:
                return False, f"acl_neon {op.type} computes float32 operands only"
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and any(d == 0 for d in graph.operands[i].shape):
                return False, f"acl_neon {op.type} leaves empty tensors to cpu"
        x = graph.operands[op.inputs[0]]
        if cls.rank is not None and len(x.shape) != cls.rank:
            return False, f"acl_neon {op.type} needs a rank-{cls.rank} input"
        act = op.params.get("fused_activation_function")
        if cls.clamp_only and act not in (None, *CLAMPS):
            return False, f"acl_neon {op.type} has no fused {act}"
        return True, ""


@register("DepthwiseConv2D")
class NeonDepthwiseConv2D(NeonSpatial, DepthwiseConv2DLayer):
    float_inputs = (0, 1, 2)

    def prepare(self) -> None:
        p = self.op.params
        w = self.buf(1)
        cout = w.shape[3]
        g = conv_geometry(p, self.buf(0).shape, w.shape[1:3], self.out.shape)
        lo, hi = clamp_range(p.fused_activation_function)
        self.plan = self.lib.depthwise_plan(g.n, g.h, g.w, g.c, cout // g.c, g.kh, g.kw, g.sh,
                                            g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow, lo, hi)
        self.bias_tensor = self.inputs[2] if len(self.inputs) > 2 else None
        self.zero_bias = np.zeros(cout, np.float32) if self.bias_tensor is None else None

    def run(self) -> None:
        bias = self.zero_bias if self.bias_tensor is None else self.bias_tensor.buffer
        self.plan.run(self.inputs[0].buffer, self.inputs[1].buffer, bias, self.outputs[0].buffer,
                      self.threads)
