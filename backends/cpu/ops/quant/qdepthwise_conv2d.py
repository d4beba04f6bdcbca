"""Quantized DEPTHWISE_CONV_2D with the TFLite interpreter's integer results. The checks,
multipliers, requantization constants and which channels take the reference rounding are
core/ops/depthwise_conv2d.py's, with the TFLite kernels each form follows.

The accumulation (depthwise_plan.DepthwisePlan: zero-bordered phase planes of x - x_zp, every
tap a contiguous multiply-add over bands of output rows) runs on x - x_zp and w - w_zp in
float32 or float64, exact by the bound checked in qconv2d.QConvMixin.validate; each band is
requantized (f64_rescale.Float64Rescale, else core/ops/conv2d.py's ConvRequant) while it is in
cache.

Float form: ../depthwise_conv2d.py; hybrid form: ../hybrid_conv.py.
"""
from __future__ import annotations

from .....core.ops.depthwise_conv2d import QDepthwiseConv2DBase
from .....core.ops.window import conv_geometry
from .base import quantized, register
from .depthwise_plan import DepthwisePlan
from .qconv2d import QConvMixin


@register("DepthwiseConv2D", when=quantized)
class QDepthwiseConv2DLayer(QConvMixin, QDepthwiseConv2DBase):
    def prepare(self) -> None:
        x, y = self.buf(0), self.out
        g = conv_geometry(self.op.params, x.shape, self.wf.shape[1:3], y.shape)
        self.plan = DepthwisePlan(g, self.wf.reshape(g.kh * g.kw, self.wf.shape[3]),
                                  self.acc_dtype, self.check_scratch, self.xzp if self.raw else 0)
        self.x, self.zp = x, None if self.raw else self.acc_dtype.type(self.xzp)
        self.rescale = self.make_act(self.plan.targets(y))

    def run(self) -> None:
        self.plan.run(self.x, self.zp, self.rescale)
