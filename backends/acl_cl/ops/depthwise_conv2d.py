"""DEPTHWISE_CONV_2D on acl_cl (program conv.cl depthwise, float32) and its 8-bit quantized form
(quant.cl qdepthwise, conv2d.py's QConv2DLayer setup): int32 accumulation, then the rescale of
core/ops/depthwise_conv2d.py, whose checks run as a shadow: int8 rescales the first
cout - cout % 8 channels with the vector rounding and the last cout % 8 with the reference
rounding (halves away from zero), uint8 uses the reference rounding on every channel
(`reference_split`). int16 activations are refused (they run on cpu).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.depthwise_conv2d import QDepthwiseConv2DBase
from .common import clamp_of, register
from .conv2d import Conv2DLayer, QConv2DLayer
from .gemm import PaddedWeights, conv_args
from .quant_common import quantized_8bit

DPIX = 4      # output pixels per work item of conv.cl depthwise (its DPIX)


@register("DepthwiseConv2D")
class DepthwiseConv2DLayer(PaddedWeights):
    check_params = Conv2DLayer.check_params

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 4 or w.shape[0] != 1 or x.shape[3] == 0 or w.shape[3] % x.shape[3]:
            raise self.fail(f"DepthwiseConv2D needs a 1xKHxKWxC filter with C a multiple of "
                            f"the input channels, got {x.shape} and {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_args(self.op, x, w, y, depthwise=True)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        pad = -(-cout // 8) * 8
        self.upload_padded(np.asarray(w.data, np.float32).reshape(kh * kw, cout), cout, pad)
        lo, hi = clamp_of(self.op)
        ints = [np.int32(v) for v in geo[:6] + [pad, cout // cin] + geo[6:]]
        self.launch(self.kernel("conv.cl", "depthwise"), (pad // 8, -(-ow // DPIX), n * oh),
                    None, x.buffer, self.wt, self.bias, y.buffer, *ints, lo, hi)


@register("DepthwiseConv2D", when=quantized_8bit)
class QDepthwiseConv2DLayer(QConv2DLayer):
    base_class = QDepthwiseConv2DBase
    depthwise = True
