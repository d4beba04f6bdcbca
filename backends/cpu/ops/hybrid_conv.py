"""Hybrid CONV_2D and DEPTHWISE_CONV_2D: float32 input and output, int8 constant filters with a
per-tensor or per-channel scale (hybrid_base.py has the shared arithmetic).

Input quantization per TFLite's hybrid kernels: CONV_2D quantizes each image as one block,
symmetric for a per-tensor filter scale and asymmetric for per-channel scales (its per-channel
hybrid path); DEPTHWISE_CONV_2D (per-channel only) quantizes each image asymmetrically.
Padding holds the input zero point, so padded taps add nothing.

Grouped CONV_2D (the filter covering input depth / groups channels; core/ops/conv2d.py
conv_groups): TFLite runs it on reference_ops::HybridConvPerChannel only, which needs a scale per
output channel (its Prepare refuses a per-tensor one), quantizes each image asymmetrically, and
rescales as (acc * filter scale) * input scale in float32, in that order.

Float forms: conv2d.py, depthwise_conv2d.py; quantized forms: quant/qconv2d.py,
quant/qdepthwise_conv2d.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.conv2d import check_groups
from ....core.ops.forms import hybrid
from .common import activation, conv_padding, register
from .conv2d import patch_view
from .hybrid_base import HybridKernel, quantize_rows


class HybridConvBase(HybridKernel):
    """The checks, the run-time input quantization and the rescale of the hybrid convolutions."""

    channel_axis = 0
    depthwise = False

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(x.shape) != 4 or len(w.shape) != 4:
            raise self.fail(f"needs 4-D input and filter, got {x.shape} and {w.shape}")
        cout = w.shape[3] if self.depthwise else w.shape[0]
        self.wscale = self.check_weights(cout, self.channel_axis)
        s = np.asarray(w.quant.scale).reshape(-1)
        self.asym = self.depthwise or s.size > 1
        self.act = activation(self.op.params.fused_activation_function)
        if self.depthwise:
            mult = self.op.params.depth_multiplier or 1
            if w.shape[3] != x.shape[3] * mult:
                raise self.fail(f"filter channels {w.shape[3]} != input {x.shape[3]} x {mult}")
            if w.shape[0] != 1:
                raise self.fail(f"depthwise filter must be (1, KH, KW, C), got {w.shape}")
        else:
            self.groups = check_groups(self)
            if self.groups > 1 and np.size(w.quant.scale) != w.shape[0]:
                raise self.fail(f"a grouped hybrid CONV_2D needs a filter scale per output "
                                f"channel ({w.shape[0]}), not {np.size(w.quant.scale)} (TFLite "
                                f"refuses it too)")

    def prepare(self) -> None:
        """The padded int64 input (border: the zero point, refilled per image each run) and its
        windows (N, OH, OW, KH, KW, C), a view of it."""
        p = self.op.params
        x, w, y = self.buf(0), self.buf(1), self.out
        n, h, wd, c = x.shape
        kh, kw = w.shape[1], w.shape[2]
        oh, ow = y.shape[1], y.shape[2]
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, pb, pl, pr = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        self.xp = np.empty((n, h + pt + pb, wd + pl + pr, c), np.int64)
        self.interior = self.xp[:, pt:pt + h, pl:pl + wd, :]
        self.windows = patch_view(self.xp, oh, ow, kh, kw, sh, sw, dh, dw)

    def _quantized_windows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per image: int windows (N, OH, OW, KH, KW, C), scale (N,), zero point (N,)."""
        x = self.buf(0)
        n = x.shape[0]
        q, scale, zp = quantize_rows(x.reshape(n, -1), self.asym)
        self.xp[...] = zp.reshape(n, 1, 1, 1)
        self.interior[...] = q.reshape(x.shape)
        return self.windows, scale, zp

    def finish(self, acc: np.ndarray, scale: np.ndarray, reference: bool = False) -> None:
        """acc (N, OH, OW, Cout) already offset-corrected; rescale, bias, activation.
        `reference`: (acc * filter scale) * input scale, the reference kernel's order."""
        if reference:
            y = acc.astype(np.float32) * self.wscale.astype(np.float32)
            y *= scale.astype(np.float32)[:, None, None, None]
        else:
            mult = (scale[:, None] * self.wscale[None, :]).astype(np.float32)
            y = acc.astype(np.float32) * mult[:, None, None, :]
        bias = self.buf(2)
        if bias is not None:
            y += bias
        np.copyto(self.out, y)
        if self.act is not None:
            self.act(self.out)


@register("Conv2D", when=hybrid)
class HybridConv2DLayer(HybridConvBase):
    def validate(self) -> None:
        super().validate()
        w = self.inputs[1].buffer.astype(np.int64)
        g = self.groups
        # (G, KH*KW*C/G, Cout/G): each group's filters
        self.wmat = w.reshape(g, w.shape[0] // g, -1).transpose(0, 2, 1)
        self.wsum = w.reshape(w.shape[0], -1).sum(axis=1)

    def run(self) -> None:
        win, scale, zp = self._quantized_windows()
        wmat, g = self.wmat, self.groups
        n, oh, ow = win.shape[:3]
        # (G, pixels, KH*KW*C/G): each group's windows
        cols = win.reshape(n * oh * ow, -1, g, win.shape[-1] // g).transpose(2, 0, 1, 3)
        acc = np.matmul(cols.reshape(g, n * oh * ow, -1), wmat)          # (G, pixels, Cout/G)
        acc = acc.transpose(1, 0, 2).reshape(n, oh, ow, -1)
        if self.asym:
            acc -= zp.reshape(n, 1, 1, 1).astype(np.int64) * self.wsum
        self.finish(acc, scale, reference=g > 1)


@register("DepthwiseConv2D", when=hybrid)
class HybridDepthwiseConv2DLayer(HybridConvBase):
    channel_axis = 3
    depthwise = True

    def validate(self) -> None:
        super().validate()
        self.w = self.inputs[1].buffer.astype(np.int64)[0]       # (KH, KW, Cout)
        self.wsum = self.w.sum(axis=(0, 1))

    def run(self) -> None:
        win, scale, zp = self._quantized_windows()
        w = self.w
        cin = win.shape[-1]
        mult = w.shape[2] // cin
        src = np.repeat(win, mult, axis=-1) if mult > 1 else win  # channel k*mult+m reads k
        acc = np.einsum("nhwijc,ijc->nhwc", src, w)
        n = acc.shape[0]
        acc -= zp.reshape(n, 1, 1, 1).astype(np.int64) * self.wsum
        self.finish(acc, scale)
