"""Quantized DEPTHWISE_CONV_2D with the TFLite interpreter's integer results.

TFLite's builtin DEPTHWISE_CONV_2D runs, per input type (depthwise_conv.cc Eval):
  uint8 -> optimized_ops::DepthwiseConv (DepthwiseConvGeneral: int32 accumulators, then a
           rescale that matched the reference rounding on every element: halves away from zero),
  int8  -> optimized_integer_ops::DepthwiseConvPerChannel: its output stage rescales 8 channels
           at a time with the vector rounding (halves up) and the last cout % 8 channels of every
           pixel with the scalar reference rounding (probed: 3..40 channels, multipliers 1..4),
  int16 -> reference_integer_ops::DepthwiseConvPerChannel (int64 bias, int64 rescale).
The accumulation reuses the float kernel's plan (backends/cpu/ops/depthwise_conv2d.py: shifted
input views times per-channel weights, padding taps skipped) on x - x_zp and w - w_zp in float32
or float64, exact by the bound checked in QConvBase.validate; the float kernel's per-band
activation hook requantizes each band (qconv.ConvRequant) while it is in cache.
"""
from __future__ import annotations

import numpy as np

from ..depthwise_conv2d import DepthwiseConv2DLayer
from .base import I8, I16, U8, qregister
from .qconv import QConvBase


@qregister("DepthwiseConv2D")
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
        dt, y = self.acc_dtype, self.out
        yf = np.empty(y.shape, dt)
        fl = self.float_plan(DepthwiseConv2DLayer, np.empty(self.buf(0).shape, dt), yf)
        row = yf.strides[1] if yf.ndim == 4 and yf.shape[1] else 1
        targets = []
        for f, _, _ in fl.bands:
            r0 = (f.__array_interface__["data"][0] - yf.__array_interface__["data"][0]) // row
            targets.append((f, y[:, r0:r0 + f.shape[1]]))
        self.hook(targets)
