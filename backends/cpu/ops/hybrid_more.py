"""Hybrid CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL and EMBEDDING_LOOKUP (see hybrid.py).

Input quantization per TFLite's hybrid kernels: CONV_2D quantizes each image as one block,
symmetric for a per-tensor filter scale and asymmetric for per-channel scales (its per-channel
hybrid path); DEPTHWISE_CONV_2D (per-channel only) quantizes each image asymmetrically;
BATCH_MATMUL quantizes each row of the LHS (asymmetric with `asymmetric_quantize_inputs`).
Padding holds the input zero point, so padded taps add nothing.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ....core.ops.forms import hybrid, int8_table
from .common import CpuKernel, activation, conv_padding, register
from .hybrid_base import F32, I8, HybridKernel, quantize_rows


def _windows(xp: np.ndarray, oh: int, ow: int, kh: int, kw: int, sh: int, sw: int, dh: int,
             dw: int) -> np.ndarray:
    """(N, OH, OW, KH, KW, C) view of padded NHWC `xp`."""
    n, _, _, c = xp.shape
    s = xp.strides
    return as_strided(xp, (n, oh, ow, kh, kw, c),
                      (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3]), writeable=False)


class _HybridConvBase(HybridKernel):
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
        elif x.shape[3] != w.shape[3]:
            raise self.fail(f"input channels {x.shape[3]} != filter's {w.shape[3]}")

    def _quantized_windows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per image: int windows (N, OH, OW, KH, KW, C), scale (N,), zero point (N,)."""
        p = self.op.params
        x, w, y = self.buf(0), self.buf(1), self.out
        n, h, wd, c = x.shape
        kh, kw = w.shape[1], w.shape[2]
        oh, ow = y.shape[1], y.shape[2]
        sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
        pt, pb, pl, pr = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
        q, scale, zp = quantize_rows(x.reshape(n, -1), self.asym)
        xp = np.empty((n, h + pt + pb, wd + pl + pr, c), np.int64)
        xp[...] = zp.reshape(n, 1, 1, 1)
        xp[:, pt:pt + h, pl:pl + wd, :] = q.reshape(x.shape)
        return _windows(xp, oh, ow, kh, kw, sh, sw, dh, dw), scale, zp

    def finish(self, acc: np.ndarray, scale: np.ndarray) -> None:
        """acc (N, OH, OW, Cout) already offset-corrected; rescale, bias, activation."""
        mult = (scale[:, None] * self.wscale[None, :]).astype(np.float32)
        y = acc.astype(np.float32) * mult[:, None, None, :]
        bias = self.buf(2)
        if bias is not None:
            y += bias
        np.copyto(self.out, y)
        if self.act is not None:
            self.act(self.out)


@register("Conv2D", when=hybrid)
class HybridConv2D(_HybridConvBase):
    def run(self) -> None:
        win, scale, zp = self._quantized_windows()
        w = self.buf(1).astype(np.int64)
        cout = w.shape[0]
        wmat = w.reshape(cout, -1)
        n, oh, ow = win.shape[:3]
        cols = win.reshape(n * oh * ow, -1)
        acc = (cols @ wmat.T).reshape(n, oh, ow, cout)
        if self.asym:
            acc -= zp.reshape(n, 1, 1, 1).astype(np.int64) * wmat.sum(axis=1)
        self.finish(acc, scale)


@register("DepthwiseConv2D", when=hybrid)
class HybridDepthwiseConv2D(_HybridConvBase):
    channel_axis = 3
    depthwise = True

    def run(self) -> None:
        win, scale, zp = self._quantized_windows()
        w = self.buf(1).astype(np.int64)[0]                      # (KH, KW, Cout)
        cin = win.shape[-1]
        mult = w.shape[2] // cin
        src = np.repeat(win, mult, axis=-1) if mult > 1 else win  # channel k*mult+m reads k
        acc = np.einsum("nhwijc,ijc->nhwc", src, w)
        n = acc.shape[0]
        acc -= zp.reshape(n, 1, 1, 1).astype(np.int64) * w.sum(axis=(0, 1))
        self.finish(acc, scale)


@register("BatchMatMul", when=hybrid)
class HybridBatchMatMul(HybridKernel):
    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")
        p = self.op.params
        self.adj_x, self.adj_y = bool(p.get("adj_x", False)), bool(p.get("adj_y", False))
        if np.asarray(b.quant.scale).size != 1:
            raise self.fail("hybrid BatchMatMul needs a per-tensor RHS scale")
        self.wscale = self.check_weights(1, 0)
        self.asym = bool(p.get("asymmetric_quantize_inputs", False))
        rhs = b.buffer.astype(np.int64)
        self.rhs = np.swapaxes(rhs, -1, -2) if self.adj_y else rhs   # (..., K, N)
        self.col_sums = self.rhs.sum(axis=-2)                         # (..., N)

    def run(self) -> None:
        a = self.buf(0)
        if self.adj_x:
            a = np.swapaxes(a, -1, -2)
        k = a.shape[-1]
        q, s, zp = quantize_rows(np.ascontiguousarray(a).reshape(-1, k), self.asym)
        q = q.reshape(a.shape).astype(np.int64)
        acc = np.matmul(q, self.rhs)
        if self.asym:
            acc = acc - zp.reshape(a.shape[:-1])[..., None].astype(np.int64) * \
                self.col_sums[..., None, :]
        mult = (s.reshape(a.shape[:-1]) * self.wscale[0]).astype(np.float32)
        np.copyto(self.out, acc.astype(np.float32) * mult[..., None])


@register("EmbeddingLookup", when=int8_table)
class HybridEmbeddingLookup(CpuKernel):
    """out[i] = value[ids[i]] * scale (per tensor, or per row of the table)."""

    dtypes = None

    def validate(self) -> None:
        ids, value = self.inputs[0], self.inputs[1]
        if value.dtype != I8 or value.quant is None:
            raise self.fail("hybrid EmbeddingLookup needs an int8 table with a scale")
        if self.outputs[0].dtype != F32:
            raise self.fail("hybrid EmbeddingLookup writes float32")
        s = np.asarray(value.quant.scale, np.float32).reshape(-1)
        rows = value.shape[0]
        if s.size not in (1, rows) or (s.size > 1 and value.quant.axis != 0):
            raise self.fail(f"table scales ({s.size}) must be per tensor or per row")
        self.scale = s
        self.zp = np.asarray(value.quant.zero_point, np.float32).reshape(-1)
        self.rows = rows
        if len(ids.shape) != 1:
            raise self.fail(f"ids must be 1-D, got {ids.shape}")

    def run(self) -> None:
        ids = self.buf(0).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.rows):
            raise IndexError(f"EmbeddingLookup: ids out of range [0, {self.rows})")
        table = self.buf(1)[ids].astype(np.float32)
        scale = self.scale if self.scale.size == 1 else self.scale[ids]
        zp = self.zp if self.zp.size == 1 else self.zp[ids]
        shape = (-1,) + (1,) * (table.ndim - 1)
        out = (table - zp.reshape(shape)) * scale.reshape(shape)
        np.copyto(self.out, out.reshape(self.out.shape))


__all__ = ["HybridConv2D", "HybridDepthwiseConv2D", "HybridBatchMatMul", "HybridEmbeddingLookup",
           "F32"]
