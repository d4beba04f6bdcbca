"""CONV_3D (float32): the input copied into a zero border, every output position's window (a
strided view) copied once into an im2col buffer, and one matmul with the [KD*KH*KW*I, O] filter
(a view of it); then the bias and the fused clamp. TFLite's reference_ops::Conv3D sums the same
products over the taps inside the input. Checks and geometry: core/ops/conv3d.py (Conv3DBase).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.conv3d import Conv3DBase
from .common import register
from .conv2d import PaddedInput, window_view


@register("Conv3D")
class Conv3DLayer(Conv3DBase):
    """inputs (input NDHWC, filter [KD, KH, KW, I, O], bias?); float32."""

    def prepare(self) -> None:
        x, w, y = self.buf(0), self.buf(1), self.out
        g = self.geometry()
        n, cin, cout = x.shape[0], x.shape[4], w.shape[4]
        out = y.shape[1:4]
        padded = (n, *(d + b + a for d, (b, a) in zip(x.shape[1:4], g.pads)), cin)
        self.check_scratch("padded input", padded, x.dtype)
        self.check_scratch("im2col buffer", (n, *out, *g.k, cin), x.dtype)
        self.pad = PaddedInput(x, g.pads)
        self.view = window_view(self.pad.padded, out, g.k, g.strides, g.dilations)
        self.cols = np.empty(self.view.shape, x.dtype)
        rows = int(np.prod(y.shape[:4]))
        self.cols2d = self.cols.reshape(rows, -1)
        self.wmat = w.reshape(-1, cout)           # [KD*KH*KW*I, O]: the filter's own layout
        self.y2d = y.reshape(rows, cout)
        self.bias = self.buf(2)

    def run(self) -> None:
        self.pad.refresh()
        np.copyto(self.cols, self.view)
        np.matmul(self.cols2d, self.wmat, out=self.y2d)
        if self.bias is not None:
            np.add(self.y2d, self.bias, out=self.y2d)
        if self.act is not None:
            self.act(self.y2d)
