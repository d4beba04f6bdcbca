"""Float32 Pool2D (AVERAGE_POOL_2D, MAX_POOL_2D) on native code (module _spatial): the validation
of core/ops/pool2d.py, a native plan built in prepare() and bound as the kernel's native step;
the fused clamp reaches the native code as a range. L2 pooling, a TANH or SIGN_BIT fused into it
and empty tensors are refused and fall back to cpu. Quantized form: quant_pool2d.py."""
from __future__ import annotations

from ....core.ir import Graph, Operation
from ....core.ops.pool2d import Pool2DBase
from ....core.ops.window import conv_geometry
from .base import clamp_range, register
from .spatial import NeonSpatial


@register("Pool2D")
class Pool2DLayer(NeonSpatial, Pool2DBase):
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
