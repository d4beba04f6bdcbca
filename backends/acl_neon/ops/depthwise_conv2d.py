"""DEPTHWISE_CONV_2D on acl_neon: float32 on the native spatial kernels (module _spatial,
spatial.py's NeonSpatial checks) and the 8-bit quantized form with int32 accumulation and the
native requantization (module _quant). The checks, multipliers and requantization constants are
core/ops/depthwise_conv2d.py's, so results are the cpu kernels'.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.depthwise_conv2d import DepthwiseConv2DBase, QDepthwiseConv2DBase
from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8
from ....core.exec.native import slot_of
from ....core.ops.window import conv_geometry
from .base import QuantNeon, clamp_range, register
from .quant_gemm import conv_requant
from .spatial import NeonSpatial


@register("DepthwiseConv2D")
class DepthwiseConv2DLayer(NeonSpatial, DepthwiseConv2DBase):
    float_inputs = (0, 1, 2)

    def prepare(self) -> None:
        p = self.op.params
        w = self.buf(1)
        cout = w.shape[3]
        g = conv_geometry(p, self.buf(0).shape, w.shape[1:3], self.out.shape)
        lo, hi = clamp_range(p.fused_activation_function)
        self.plan = self.lib.depthwise_plan(g.n, g.h, g.w, g.c, cout // g.c, g.kh, g.kw, g.sh,
                                            g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow, lo, hi,
                                            *self.epilogue())

    def epilogue(self) -> tuple:
        """The plan's epilogue arguments (kind, clamp): none here; conv_epilogue.py's fused
        kernels give theirs."""
        return ()

    def bind(self):
        """Input, filter, bias (None when absent: the plan's zeros), output."""
        bias = self.inputs[2] if len(self.inputs) > 2 else None
        return self.plan.bind(slot_of(self.inputs[0]), slot_of(self.inputs[1]),
                              None if bias is None else slot_of(bias), slot_of(self.outputs[0]),
                              self.threads)


@register("DepthwiseConv2D", when=quantized)
class QDepthwiseConv2DLayer(QuantNeon, QDepthwiseConv2DBase):
    def prepare(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        cout, cin = int(w.shape[3]), int(x.shape[3])
        wq = self.wq.reshape(-1, cout).astype(np.int16)      # the filter minus its zero point
        geom = list(conv_geometry(self.op.params, x.shape, w.shape[1:3], y.shape))
        self.plan = self.lib.QDepthwisePlan(geom, cout // cin, np.ascontiguousarray(wq),
                                           x.dtype == I8, self.xzp,
                                           conv_requant(self.requant, cout))
