"""Pool2D (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D) on float32 (conv.cl pool2d), and the launch
geometry shared with the quantized form (quant_pool2d.py). Window geometry: core/ops/pool2d.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.pool2d import pool_geometry
from .common import ClKernel, check_act, clamp_of, register

POOL_KIND = {"AVERAGE_POOL_2D": 0, "MAX_POOL_2D": 1, "L2_POOL_2D": 2}


def pool_launch(op, x, y) -> tuple[tuple[int, int, int], list[int]]:
    """(global size (c, ow, n*oh), [h, w, c, oh, ow, kh, kw, sh, sw, pad_top, pad_left]) of an
    NHWC pooling."""
    g = pool_geometry(op.params, x.shape, y.shape)
    return (g.c, g.ow, g.n * g.oh), [g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.pt,
                                     g.pl]


@register("Pool2D")
class Pool2DLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, "acl_cl Pool2D needs NHWC input"
        return check_act(op)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        gsize, geo = pool_launch(self.op, x, y)
        lo, hi = clamp_of(self.op)
        ints = [np.int32(v) for v in geo + [POOL_KIND[self.op.subtype]]]
        self.launch(self.kernel("conv.cl", "pool2d"), gsize, None, x.buffer, y.buffer, *ints,
                    lo, hi)
