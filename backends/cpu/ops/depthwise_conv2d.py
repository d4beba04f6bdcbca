"""DEPTHWISE_CONV_2D: a sum over the filter taps of shifted input views times per-channel
weights, done in bands of output rows so the partial sums stay in cache."""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, activation, conv_padding, register
from .conv2d import PaddedInput

BAND_BYTES = 256 * 1024


@register("DepthwiseConv2D")
class DepthwiseConv2DLayer(CpuKernel):
    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) != 4 or len(w.shape) != 4 or w.shape[0] != 1:
            raise self.fail(f"DepthwiseConv2D needs NHWC input and a 1xKHxKWxC filter, got "
                            f"{x.shape} and {w.shape}")
        cin, cout = x.shape[3], w.shape[3]
        if cin == 0 or cout % cin:
            raise self.fail(f"filter channels {cout} are not a multiple of input channels {cin}")
        self.act = activation(self.op.params.fused_activation_function)

    def prepare(self) -> None:
        p = self.op.params
        x, w, y = self.buf(0), self.buf(1), self.out
        n, h, wd, cin = x.shape
        _, kh, kw, cout = w.shape
        _, oh, ow, _ = y.shape
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, pb, pl, pr = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        self.mult = cout // cin
        self.pad = PaddedInput(x, pt, pb, pl, pr)
        src = self.pad.padded
        if self.mult > 1:
            self.repeated = np.empty(src.shape[:3] + (cout,), x.dtype)
            src = self.repeated
        self.w = np.ascontiguousarray(w.reshape(kh * kw, cout))
        self.bias = self.buf(2)
        self.y = y
        row_bytes = max(n * ow * cout * x.dtype.itemsize, 1)
        band = min(oh, max(1, BAND_BYTES // row_bytes))
        tmp = np.empty((n, band, ow, cout), x.dtype)
        self.const_w = self.inputs[1].is_constant
        self.bands = []
        for r0 in range(0, oh, band):
            r1 = min(oh, r0 + band)
            taps = []
            for i in range(kh):
                for j in range(kw):
                    rs = r0 * sh + i * dh
                    cs = j * dw
                    view = src[:, rs:rs + (r1 - r0 - 1) * sh + 1:sh, cs:cs + (ow - 1) * sw + 1:sw, :]
                    taps.append((view, self.w[i * kw + j]))
            self.bands.append((y[:, r0:r1], tmp[:, :r1 - r0], taps))

    def run(self) -> None:
        if not self.const_w:
            self.prepare()
        src = self.pad.refresh()
        if self.mult > 1:
            np.copyto(self.repeated, np.repeat(src, self.mult, axis=3))
        mul, add = np.multiply, np.add
        for out, tmp, taps in self.bands:
            view, wk = taps[0]
            mul(view, wk, out=out)
            for view, wk in taps[1:]:
                mul(view, wk, out=tmp)
                add(out, tmp, out=out)
            if self.bias is not None:
                add(out, self.bias, out=out)
            if self.act is not None:
                self.act(out)
