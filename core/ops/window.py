"""The geometry of a 2-D NHWC window op: input and output sizes, window, strides and the
padding of TFLite's SAME/VALID schemes (tensorflow/lite/kernels/padding.h
ComputePaddingHeightWidth, as core/ops/base.py's `conv_padding` computes it).

`ConvGeometry`: a convolution's, with dilations and the top/left padding (the 14 values the
native plans take; pooling on acl_neon reads it without dilations). `PoolGeometry`: a pooling
window, without dilations, with all four paddings (the kernels that pad both sides). cpu's
CONV_2D and hybrid convolutions, which copy the input into a bordered buffer under a dilated
window, take all four paddings from `conv_padding` itself."""
from __future__ import annotations

from typing import NamedTuple

from .base import conv_padding


class ConvGeometry(NamedTuple):
    n: int
    h: int
    w: int
    c: int
    oh: int
    ow: int
    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int
    pt: int
    pl: int


def conv_geometry(params, xs, k_hw, ys, dilated: bool = True) -> ConvGeometry:
    """The geometry of a 2-D NHWC window op: input shape `xs`, window (kh, kw), output shape
    `ys`, the params' strides (and dilations unless `dilated` is False), SAME/VALID padding."""
    n, h, w, c = (int(v) for v in xs)
    kh, kw = (int(v) for v in k_hw)
    oh, ow = int(ys[1]), int(ys[2])
    sh, sw = params.stride_h, params.stride_w
    dh, dw = (params.dilation_h_factor, params.dilation_w_factor) if dilated else (1, 1)
    pt, _, pl, _ = conv_padding(params.padding, h, w, kh, kw, sh, sw, dh, dw, oh, ow)
    return ConvGeometry(n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl)


class PoolGeometry(NamedTuple):
    """A pooling window: ConvGeometry's fields without dilations (1), with all four paddings
    (the host kernels pad both sides; the native convolution plans take ConvGeometry's 14)."""

    n: int
    h: int
    w: int
    c: int
    oh: int
    ow: int
    kh: int
    kw: int
    sh: int
    sw: int
    pt: int      # padding: top, bottom, left, right
    pb: int
    pl: int
    pr: int


def pool_geometry(params, x_shape, y_shape) -> PoolGeometry:
    """The window of a 2-D NHWC pooling: input `x_shape`, output `y_shape`, the params' filter
    size, strides and SAME/VALID padding."""
    n, h, w, c = (int(v) for v in x_shape)
    oh, ow = int(y_shape[1]), int(y_shape[2])
    kh, kw, sh, sw = params.filter_height, params.filter_width, params.stride_h, params.stride_w
    pt, pb, pl, pr = conv_padding(params.padding, h, w, kh, kw, sh, sw, 1, 1, oh, ow)
    return PoolGeometry(n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pb, pl, pr)


__all__ = ["ConvGeometry", "conv_geometry", "PoolGeometry", "pool_geometry"]
