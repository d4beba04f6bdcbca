"""Pool2D (program conv.cl pool2d) and its geometry. The other kernels of conv.cl are in
conv2d.py, depthwise_conv2d.py, fully_connected.py and batch_matmul.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.base import conv_padding
from .common import ClKernel, check_act, clamp_of, register

POOL_KIND = {"AVERAGE_POOL_2D": 0, "MAX_POOL_2D": 1, "L2_POOL_2D": 2}


def pool_geometry(op, x, y) -> tuple[tuple[int, int, int], list[int]]:
    """(global size (c, ow, n*oh), [h, w, c, oh, ow, kh, kw, sh, sw, pad_top, pad_left]) of an
    NHWC pooling."""
    p = op.params
    n, h, wd, c = x.shape
    _, oh, ow, _ = y.shape
    kh, kw, sh, sw = p.filter_height, p.filter_width, p.stride_h, p.stride_w
    pt, _, pl, _ = conv_padding(p.padding, h, wd, kh, kw, sh, sw, 1, 1, oh, ow)
    return (c, ow, n * oh), [h, wd, c, oh, ow, kh, kw, sh, sw, pt, pl]


@register("Pool2D")
class Pool2DLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, "acl_cl Pool2D needs NHWC input"
        return check_act(op)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        gsize, geo = pool_geometry(self.op, x, y)
        lo, hi = clamp_of(self.op)
        ints = [np.int32(v) for v in geo + [POOL_KIND[self.op.subtype]]]
        self.launch(self.kernel("conv.cl", "pool2d"), gsize, None, x.buffer, y.buffer, *ints,
                    lo, hi)
