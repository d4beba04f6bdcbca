"""Float32 spatial kernels on native code (module _spatial): Pool2D (average, max),
ResizeBilinear, L2Normalization, InstanceNorm, LocalResponseNormalization; DepthwiseConv2D
(depthwise_conv2d.py) shares `NeonSpatial`.

Each subclasses the cpu kernel of its op (the same validation), builds a native plan in
prepare() and makes one native call per run. Fused activations reach the native code as a clamp
range; a form computed here by no native kernel (L2 pooling, a TANH or SIGN_BIT fused into a
normalization, empty tensors) is refused and falls back to cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from ...cpu.ops.circle_ops import InstanceNormLayer
from ....core.ops.base import CLAMPS
from ...cpu.ops.misc_math import L2NormalizationLayer, LocalResponseNormalizationLayer
from ...cpu.ops.pool_resize import Pool2DLayer, ResizeBilinearLayer, interpolation
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


@register("Pool2D")
class NeonPool2D(NeonSpatial, Pool2DLayer):
    KINDS = {"AVERAGE_POOL_2D": "average", "MAX_POOL_2D": "max"}

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        if op.subtype not in cls.KINDS:
            return False, f"acl_neon has no {op.subtype} kernel"
        return super().supports(op, graph)

    def prepare(self) -> None:
        p = self.op.params
        g = conv_geometry(p, self.buf(0).shape, (p.filter_height, p.filter_width),
                          self.out.shape, dilated=False)
        lo, hi = clamp_range(p.get("fused_activation_function"))
        self.plan = self.lib.pool_plan(self.KINDS[self.op.subtype], g.n, g.h, g.w, g.c, g.kh,
                                       g.kw, g.sh, g.sw, g.pt, g.pl, g.oh, g.ow, lo, hi)


@register("ResizeBilinear")
class NeonResizeBilinear(NeonSpatial, ResizeBilinearLayer):
    def prepare(self) -> None:
        p = self.op.params
        n, h, w, c = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)
        y0, y1, dy = interpolation(oh, h, align, half)      # the cpu kernel's coordinates
        x0, x1, dx = interpolation(ow, w, align, half)
        i32, f32 = np.int32, np.float32
        self.plan = self.lib.resize_plan(
            n, h, w, c, oh, ow, y0.astype(i32), y1.astype(i32), dy.astype(f32),
            x0.astype(i32), x1.astype(i32), dx.astype(f32))


@register("L2Normalization")
class NeonL2Normalization(NeonSpatial, L2NormalizationLayer):
    rank = None
    clamp_only = True

    def prepare(self) -> None:
        shape = self.buf(0).shape
        self.depth = int(shape[-1]) if shape else 1
        self.lo, self.hi = clamp_range(self.op.params.get("fused_activation_function"))

    def run(self) -> None:
        self.lib.l2_normalize(self.inputs[0].buffer, self.outputs[0].buffer, self.depth,
                              self.lo, self.hi, self.threads)


@register("InstanceNorm")
class NeonInstanceNorm(NeonSpatial, InstanceNormLayer):
    float_inputs = (0, 1, 2)
    rank = None
    clamp_only = True

    def prepare(self) -> None:
        x = self.buf(0)
        n, c = x.shape[0], x.shape[-1]
        spatial = int(np.prod(x.shape[1:-1]))
        sizes = [0 if self.buf(i) is None else int(self.buf(i).size) for i in (1, 2)]
        lo, hi = clamp_range(self.op.params.fused_activation_function)
        self.plan = self.lib.instance_norm_plan(n, spatial, c, self.eps, *sizes, lo, hi)

    def run(self) -> None:
        self.plan.run(self.buf(0), self.buf(1), self.buf(2), self.out, self.threads)


@register("LocalResponseNormalization")
class NeonLocalResponseNormalization(NeonSpatial, LocalResponseNormalizationLayer):
    def prepare(self) -> None:
        x = self.buf(0)
        c = x.shape[-1]
        self.plan = self.lib.lrn_plan(x.size // c, c, max(self.radius, 0), float(self.bias),
                                      float(self.alpha), float(self.beta))
