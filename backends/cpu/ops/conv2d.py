"""CONV_2D (float32): im2col (a strided view copied once) and one matmul; 1x1 convolutions go
straight to np.matmul on the input. Checks: core/ops/conv2d.py (Conv2DBase).

Quantized form: quant/qconv2d.py; hybrid form: hybrid_conv.py."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ....core.ops.conv2d import Conv2DBase
from .common import conv_padding, register

CHUNK_BYTES = 512 * 1024


def patch_view(xp: np.ndarray, oh: int, ow: int, kh: int, kw: int, sh: int, sw: int, dh: int,
               dw: int) -> np.ndarray:
    """(N, OH, OW, KH, KW, C) view of a padded NHWC array: every output pixel's window."""
    n, _, _, c = xp.shape
    s = xp.strides
    return as_strided(xp, (n, oh, ow, kh, kw, c), (s[0], s[1] * sh, s[2] * sw, s[1] * dh,
                                                   s[2] * dw, s[3]), writeable=False)


class PaddedInput:
    """A zero-bordered copy of an NHWC input, refreshed each run (None when no padding)."""

    def __init__(self, x: np.ndarray, pt: int, pb: int, pl: int, pr: int) -> None:
        n, h, w, c = x.shape
        self.x = x
        if pt or pb or pl or pr:
            self.padded = np.zeros((n, h + pt + pb, w + pl + pr, c), x.dtype)
            self.interior = self.padded[:, pt:pt + h, pl:pl + w, :]
        else:
            self.padded, self.interior = x, None

    def refresh(self) -> np.ndarray:
        if self.interior is not None:
            np.copyto(self.interior, self.x)
        return self.padded


@register("Conv2D")
class Conv2DLayer(Conv2DBase):
    def prepare(self) -> None:
        p = self.op.params
        x, w, y = self.buf(0), self.buf(1), self.out
        bias = self.buf(2)
        n, h, wd, cin = x.shape
        cout, kh, kw, _ = w.shape
        _, oh, ow, _ = y.shape
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, pb, pl, pr = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        self.wmat = w.reshape(cout, kh * kw * cin).T         # a view: BLAS reads it transposed
        self.bias = bias
        self.y2d = y.reshape(n * oh * ow, cout)
        self.pointwise = kh == kw == 1 and sh == sw == 1 and not (pt or pb or pl or pr)
        if self.pointwise:
            self.x2d = x.reshape(n * h * wd, cin)
        else:
            self.check_scratch("padded input", (n, h + pt + pb, wd + pl + pr, cin), x.dtype)
            self.check_scratch("im2col buffer", (n, oh, ow, kh, kw, cin), x.dtype)
            self.pad = PaddedInput(x, pt, pb, pl, pr)
            self.cols = np.empty((n, oh, ow, kh, kw, cin), x.dtype)
            self.cols2d = self.cols.reshape(n * oh * ow, kh * kw * cin)
            self.view = patch_view(self.pad.padded, oh, ow, kh, kw, sh, sw, dh, dw)
        # matmul, bias and activation chunk by chunk of rows, so the epilogue reads from cache
        lhs = self.x2d if self.pointwise else self.cols2d
        rows = max(1, CHUNK_BYTES // max(cout * y.dtype.itemsize, 1))
        self.chunks = [(lhs[r:r + rows], self.y2d[r:r + rows])
                       for r in range(0, self.y2d.shape[0], rows)]

    def run(self) -> None:
        if not self.pointwise:
            self.pad.refresh()
            np.copyto(self.cols, self.view)
        wmat, bias, act = self.wmat, self.bias, self.act
        for lhs, out in self.chunks:
            np.matmul(lhs, wmat, out=out)
            if bias is not None:
                np.add(out, bias, out=out)
            if act is not None:
                act(out)
