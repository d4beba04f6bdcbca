"""CONV_2D (float32): im2col (a strided view copied once) and one matmul; 1x1 convolutions go
straight to np.matmul on the input. A grouped convolution (the filter covering input depth /
groups channels) copies each group's windows apart and runs one batched matmul, group by group
(TFLite's reference_ops::Conv computes the same sums). Checks: core/ops/conv2d.py (Conv2DBase).

`window_view` and `PaddedInput` (any number of spatial axes) serve CONV_3D too (conv3d.py).
Quantized form: quant/qconv2d.py; hybrid form: hybrid_conv.py."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ....core.ops.conv2d import Conv2DBase
from .common import conv_padding, register

CHUNK_BYTES = 512 * 1024


def window_view(xp: np.ndarray, out: Sequence[int], k: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int]) -> np.ndarray:
    """(N, *out, *k, *rest) view of a padded (N, *spatial, *rest) array (`rest`: the channel
    axis, or groups and channels): every output position's window. `out`, `k`, `strides`,
    `dilations` hold one value per spatial axis."""
    r = len(out)
    s = xp.strides
    spatial = s[1:1 + r]
    shape = (xp.shape[0], *out, *k, *xp.shape[1 + r:])
    strides_ = (s[0], *(a * b for a, b in zip(spatial, strides)),
                *(a * b for a, b in zip(spatial, dilations)), *s[1 + r:])
    return as_strided(xp, shape, strides_, writeable=False)


def patch_view(xp: np.ndarray, oh: int, ow: int, kh: int, kw: int, sh: int, sw: int, dh: int,
               dw: int) -> np.ndarray:
    """(N, OH, OW, KH, KW, C) view of a padded NHWC array: every output pixel's window."""
    return window_view(xp, (oh, ow), (kh, kw), (sh, sw), (dh, dw))


class PaddedInput:
    """A zero-bordered copy of an (N, *spatial, C) input, refreshed each run (None when no
    padding); `pads`: (before, after) per spatial axis."""

    def __init__(self, x: np.ndarray, pads: Sequence[tuple[int, int]]) -> None:
        self.x = x
        if any(b or a for b, a in pads):
            shape = (x.shape[0], *(d + b + a for d, (b, a) in zip(x.shape[1:-1], pads)),
                     x.shape[-1])
            self.padded = np.zeros(shape, x.dtype)
            self.interior = self.padded[(slice(None), *(slice(b, b + d) for d, (b, _) in
                                                         zip(x.shape[1:-1], pads)))]
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
        cout, kh, kw, depth = w.shape
        _, oh, ow, _ = y.shape
        groups = cin // depth      # from the shapes: quant/qconv2d.py prepares without validate
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, pb, pl, pr = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        self.bias = bias
        self.y2d = y.reshape(n * oh * ow, cout)
        self.pointwise = kh == kw == 1 and sh == sw == 1 and not (pt or pb or pl or pr) \
            and groups == 1
        if self.pointwise:
            self.x2d = x.reshape(n * h * wd, cin)
        else:
            self.check_scratch("padded input", (n, h + pt + pb, wd + pl + pr, cin), x.dtype)
            self.check_scratch("im2col buffer", (n, oh, ow, kh, kw, cin), x.dtype)
            self.pad = PaddedInput(x, ((pt, pb), (pl, pr)))
            # (G, N, OH, OW, KH, KW, C/G): each group's windows
            padded = self.pad.padded.reshape(*self.pad.padded.shape[:3], groups, depth,
                                             copy=False)       # a view: refresh() fills it
            self.view = window_view(padded, (oh, ow), (kh, kw), (sh, sw),
                                    (dh, dw)).transpose(5, 0, 1, 2, 3, 4, 6)
            self.cols = np.empty(self.view.shape, x.dtype)
            self.cols2d = self.cols.reshape(groups, n * oh * ow, kh * kw * depth)
        # filter (G, KH*KW*C/G, O/G), a view: BLAS reads it transposed
        wmat = w.reshape(groups, cout // groups, kh * kw * depth).transpose(0, 2, 1)
        lhs = self.x2d[None] if self.pointwise else self.cols2d
        if groups == 1:                                      # plain 2-D matmuls
            wmat, lhs = wmat[0], lhs[0]
        self.wmat = wmat
        # matmul, bias and activation chunk by chunk of rows, so the epilogue reads from cache;
        # `targets`: each chunk's matmul output (per group: (G, rows, O/G), a view of it)
        rows = max(1, CHUNK_BYTES // max(cout * y.dtype.itemsize, 1))
        self.chunks = [(lhs[..., r:r + rows, :], self.y2d[r:r + rows])
                       for r in range(0, self.y2d.shape[0], rows)]
        self.targets = [out if groups == 1 else
                        out.reshape(out.shape[0], groups, -1).transpose(1, 0, 2)
                        for _, out in self.chunks]

    def run(self) -> None:
        if not self.pointwise:
            self.pad.refresh()
            np.copyto(self.cols, self.view)
        wmat, bias, act = self.wmat, self.bias, self.act
        for (lhs, out), target in zip(self.chunks, self.targets):
            np.matmul(lhs, wmat, out=target)
            if bias is not None:
                np.add(out, bias, out=out)
            if act is not None:
                act(out)
