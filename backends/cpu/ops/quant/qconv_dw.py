"""Quantized DEPTHWISE_CONV_2D with the TFLite interpreter's integer results.

TFLite's builtin DEPTHWISE_CONV_2D runs, per input type (depthwise_conv.cc Eval):
  uint8 -> optimized_ops::DepthwiseConv (DepthwiseConvGeneral: int32 accumulators, then a
           rescale that matched the reference rounding on every element: halves away from zero),
  int8  -> optimized_integer_ops::DepthwiseConvPerChannel: its output stage rescales 8 channels
           at a time with the vector rounding (halves up) and the last cout % 8 channels of every
           pixel with the scalar reference rounding (probed: 3..40 channels, multipliers 1..4),
  int16 -> reference_integer_ops::DepthwiseConvPerChannel (int64 bias, int64 rescale).
The accumulation (qdw_plan.DepthwisePlan: zero-bordered phase planes of x - x_zp, every tap a
contiguous multiply-add over bands of output rows) runs on x - x_zp and w - w_zp in float32 or
float64, exact by the bound checked in QConvBase.validate; each band is requantized
(qconv_f64.Float64Rescale, else qconv.ConvRequant) while it is in cache.
"""
from __future__ import annotations

from ..common import conv_padding
from .base import I8, I16, U8, quantized, register
from .qconv import QConvBase
from .qdw_plan import DepthwisePlan


@register("DepthwiseConv2D", when=quantized)
class QDepthwiseConv2DLayer(QConvBase):
    dtypes = frozenset({I8, U8, I16})
    filter_axis = 3

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) == 4 and len(w.shape) == 4:
            cin, cout = x.shape[3], w.shape[3]
            if w.shape[0] != 1 or cin <= 0 or cout % cin:
                raise self.fail(f"quantized DepthwiseConv2D needs a 1xKHxKWxC filter whose "
                                f"channels are a multiple of the input's, got {w.shape} for "
                                f"input {x.shape}")
        super().validate()

    def reference_split(self, cout: int) -> int:
        x = self.inputs[0]
        if x.dtype == U8:
            return 0
        if x.dtype == I8:
            return cout - cout % 8
        return cout

    def prepare(self) -> None:
        p, x, y = self.op.params, self.buf(0), self.out
        n, h, wd, _ = x.shape
        _, kh, kw, cout = self.wf.shape
        _, oh, ow, _ = y.shape
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, _, pl, _ = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        self.plan = DepthwisePlan(x.shape, self.wf.reshape(kh * kw, cout),
                                  (kh, kw, sh, sw, dh, dw, pt, pl, oh, ow), self.acc_dtype,
                                  self.check_scratch, self.xzp if self.raw else 0)
        self.x, self.zp = x, None if self.raw else self.acc_dtype.type(self.xzp)
        self.rescale = self.make_act(self.plan.targets(y))

    def run(self) -> None:
        self.plan.run(self.x, self.zp, self.rescale)
