"""DEPTHWISE_CONV_2D: a sum over the filter taps of shifted input views times per-channel
weights, done in bands of output rows so the partial sums stay in cache. Padding is never
materialized: each tap only touches the output rectangle where it reads real input. Checks:
core/ops/depthwise_conv2d.py (DepthwiseConv2DBase).

Quantized form: quant/qdepthwise_conv2d.py; hybrid form: hybrid_conv.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.depthwise_conv2d import DepthwiseConv2DBase
from ....core.ops.window import conv_geometry
from .common import register

BAND_BYTES = 256 * 1024


def valid_range(o0: int, o1: int, offset: int, stride: int, pad: int, size: int) -> tuple[int, int]:
    """Output indices o in [o0, o1) whose input index o*stride + offset - pad is inside [0, size)."""
    lo = max(o0, -((offset - pad) // stride))
    hi = min(o1, (size - 1 - offset + pad) // stride + 1)
    return lo, hi


@register("DepthwiseConv2D")
class DepthwiseConv2DLayer(DepthwiseConv2DBase):
    def prepare(self) -> None:
        x, w, y = self.buf(0), self.buf(1), self.out
        n, h, wd, cin, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = conv_geometry(
            self.op.params, x.shape, w.shape[1:3], y.shape)
        cout = w.shape[3]
        self.mult = cout // cin
        self.x = x
        src = x
        if self.mult > 1:
            self.repeated = np.empty((n, h, wd, cout), x.dtype)
            src = self.repeated
        self.w = w.reshape(kh * kw, cout)       # a view: non-constant weights stay current
        self.bias = self.buf(2)
        row_bytes = max(n * ow * cout * x.dtype.itemsize, 1)
        band = min(oh, max(1, BAND_BYTES // row_bytes))
        tmp = np.empty((n, band, ow, cout), x.dtype)
        self.bands = []
        for r0 in range(0, oh, band):
            r1 = min(oh, r0 + band)
            full, partial = [], []
            for i in range(kh):
                a, b = valid_range(r0, r1, i * dh, sh, pt, h)
                for j in range(kw):
                    c, d = valid_range(0, ow, j * dw, sw, pl, wd)
                    if a >= b or c >= d:
                        continue        # this tap only ever reads padding here
                    rs, cs = a * sh + i * dh - pt, c * sw + j * dw - pl
                    view = src[:, rs:rs + (b - a - 1) * sh + 1:sh, cs:cs + (d - c - 1) * sw + 1:sw]
                    tap = (view, self.w[i * kw + j], y[:, a:b, c:d], tmp[:, a - r0:b - r0, c:d])
                    (full if (a, b, c, d) == (r0, r1, 0, ow) else partial).append(tap)
            self.bands.append((y[:, r0:r1], full[:1], full[1:] + partial))

    def run(self) -> None:
        if self.mult > 1:
            np.copyto(self.repeated, np.repeat(self.x, self.mult, axis=3))
        mul, add = np.multiply, np.add
        for out, first, rest in self.bands:
            if first:
                view, wk, _, _ = first[0]
                mul(view, wk, out=out)
            else:
                out.fill(0)
            for view, wk, dst, tmp in rest:
                mul(view, wk, out=tmp)
                add(dst, tmp, out=dst)
            if self.bias is not None:
                add(out, self.bias, out=out)
            if self.act is not None:
                self.act(out)
