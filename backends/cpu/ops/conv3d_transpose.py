"""CONV_3D_TRANSPOSE (float32): one matmul of the input positions against the filter gives every
input position's contribution to a KDxKHxKW window of the output; the windows are scatter-added
at stride steps (dilated taps apart) into a zeroed buffer, which is cropped by the before-padding
of each axis. TFLite's reference_ops::Conv3DTranspose adds the same products one by one. Checks,
geometry and the output shape rule: core/ops/conv3d.py (Conv3DTransposeBase).
"""
from __future__ import annotations

import itertools

import numpy as np

from ....core.ops.conv3d import Conv3DTransposeBase
from .common import register


@register("Conv3DTranspose")
class Conv3DTransposeLayer(Conv3DTransposeBase):
    """inputs (output_shape, filter [KD, KH, KW, O, I], input NDHWC, bias?); float32."""

    def prepare(self) -> None:
        x, y = self.inputs[2].shape, self.out
        w = self.inputs[1].shape
        g = self.geometry()
        n, cin, cout = x[0], x[4], w[3]
        ins = x[1:4]
        # full: every position a window reaches, from 0 (the before-padding is cropped off)
        full = tuple(max((i - 1) * s + (k - 1) * d + 1, b + o) for i, s, k, d, (b, _), o in
                     zip(ins, g.strides, g.k, g.dilations, g.pads, y.shape[1:4]))
        self.check_scratch("scatter buffer", (n, *full, cout), y.dtype)
        self.check_scratch("column buffer", (n, *ins, *g.k, cout), y.dtype)
        self.full = np.zeros((n, *full, cout), y.dtype)
        self.cols = np.empty((n * int(np.prod(ins)), int(np.prod(g.k)) * cout), y.dtype)
        cols = self.cols.reshape(n, *ins, *g.k, cout)
        self.pairs = []
        for taps in itertools.product(*(range(k) for k in g.k)):
            dst = tuple(slice(t * d, t * d + (i - 1) * s + 1, s) for t, d, i, s in
                        zip(taps, g.dilations, ins, g.strides))
            self.pairs.append((self.full[(slice(None), *dst)], cols[(slice(None),) * 4 + taps]))
        self.crop = self.full[(slice(None), *(slice(b, b + o) for (b, _), o in
                                              zip(g.pads, y.shape[1:4])))]
        self.x2d_shape = (self.cols.shape[0], cin)

    def run(self) -> None:
        w = self.buf(1)
        # [KD*KH*KW*O, I] transposed: the filter read in place (it may change between runs)
        np.matmul(self.buf(2).reshape(self.x2d_shape), w.reshape(-1, w.shape[4]).T,
                  out=self.cols)
        self.full.fill(0)
        for dst, src in self.pairs:
            np.add(dst, src, out=dst)
        out, bias = self.out, self.buf(3)
        if bias is not None:
            np.add(self.crop, bias, out=out)
        else:
            np.copyto(out, self.crop)
        if self.act is not None:
            self.act(out)
