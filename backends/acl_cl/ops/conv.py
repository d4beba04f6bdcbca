"""Conv2D, FullyConnected (one implicit-GEMM kernel), DepthwiseConv2D, BatchMatMul. (Pool2D:
pool2d.py.)"""
from __future__ import annotations

import numpy as np

from ....core.ops.base import conv_padding
from .common import ClKernel, check_act, clamp_of, register

DPIX = 4      # output pixels per work item of conv.cl depthwise (its DPIX)


def _const_weights(op, graph, pos=1) -> tuple[bool, str]:
    w = graph.operands[op.inputs[pos]]
    if not w.is_constant:
        return False, f"acl_cl {op.type} needs constant weights (input {pos} is computed)"
    return check_act(op)


def conv_geometry(op, x, w, y, depthwise: bool = False) -> tuple[int, list[int]]:
    """(batch, [h, w, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw, pad_top, pad_left]) of an
    NHWC convolution with an OHWI filter (1HWC when depthwise)."""
    p = op.params
    n, h, wd, cin = x.shape
    if depthwise:
        _, kh, kw, cout = w.shape
    else:
        cout, kh, kw, _ = w.shape
    _, oh, ow, _ = y.shape
    sh, sw, dh, dw = p.stride_h, p.stride_w, p.dilation_h_factor, p.dilation_w_factor
    pt, _, pl, _ = conv_padding(p.padding, h, wd, kh, kw, sh, sw, dh, dw, oh, ow)
    return n, [h, wd, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw, pt, pl]


def gemm_blocking(m: int, cout: int) -> tuple[int, int]:
    """(PIX, VW) of conv.cl conv_gemm for an m x cout output: 16 channels per work item unless
    that pads cout by more than 8 lanes' worth, as many pixels (up to 16) as there are rows."""
    vw = 16 if cout % 16 == 0 or cout > 64 else 8
    pix = 16 if m >= 16 else 1 << max(m - 1, 0).bit_length()
    return pix, vw


def gemm_launch(m: int, cout: int) -> tuple[str, tuple[int, int], int]:
    """(build options, global size, CoutPad) of conv_gemm for an m x cout output."""
    pix, vw = gemm_blocking(m, cout)
    pad = -(-cout // vw) * vw
    return f"-DPIX={pix} -DVW={vw}", (pad // vw, -(-m // pix)), pad


class PaddedWeights(ClKernel):
    """Weights uploaded once as [K][CoutPad] and the bias (input 2, optional) as [CoutPad],
    zero past cout (the kernels compute whole vectors of channels)."""

    def upload_padded(self, wmat: np.ndarray, cout: int, pad: int) -> None:
        wt = np.zeros((wmat.shape[0], pad), np.float32)
        wt[:, :cout] = wmat
        bias = np.zeros(pad, np.float32)
        b = self.tin(2)
        if b is not None:
            bias[:cout] = np.asarray(b.data, np.float32).reshape(-1)
        self.wt, self.bias = self.const_buffer(wt), self.const_buffer(bias)


class GemmBase(PaddedWeights):
    """conv_gemm: CoutPad a multiple of the kernel's VW."""

    def upload_weights(self, wmat: np.ndarray, cout: int, m: int) -> None:
        self.opts, self.gsize, self.cout_pad = gemm_launch(m, cout)
        self.upload_padded(wmat, cout, self.cout_pad)

    def gemm(self, x, y, geo, m: int, cout: int) -> None:
        knl = self.kernel("conv.cl", "conv_gemm", self.opts)
        lo, hi = clamp_of(self.op)
        args = [x.buffer, self.wt, self.bias, y.buffer] + [np.int32(v) for v in geo] + [
            np.int32(m), lo, hi]
        self.launch(knl, self.gsize, None, *args)


@register("Conv2D")
class Conv2DLayer(GemmBase):
    check_params = classmethod(lambda cls, op, g: _const_weights(op, g) if len(
        g.operands[op.inputs[0]].shape) == 4 else (False, "acl_cl Conv2D needs NHWC input"))

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 4 or x.shape[3] != w.shape[3]:
            raise self.fail(f"acl_cl Conv2D needs an OHWI filter over all input channels, got "
                            f"input {x.shape} and filter {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_geometry(self.op, x, w, y)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        self.upload_weights(np.asarray(w.data, np.float32).reshape(cout, kh * kw * cin).T, cout,
                            n * oh * ow)
        self.gemm(x, y, geo[:6] + [self.cout_pad] + geo[6:], n * oh * ow, cout)


@register("FullyConnected")
class FullyConnectedLayer(GemmBase):
    @classmethod
    def check_params(cls, op, graph):
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            return False, "acl_cl FullyConnected supports the DEFAULT weights format only"
        return _const_weights(op, graph)

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 2 or w.shape[1] == 0 or x.size % w.shape[1]:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of weights {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        cout, k = w.shape
        m = x.size // k
        self.upload_weights(np.asarray(w.data, np.float32).T, cout, m)
        geo = (1, m, k, 1, m, cout, self.cout_pad, 1, 1, 1, 1, 1, 1, 0, 0)
        self.gemm(x, y, geo, m, cout)


@register("DepthwiseConv2D")
class DepthwiseConv2DLayer(PaddedWeights):
    check_params = Conv2DLayer.check_params

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 4 or w.shape[0] != 1 or x.shape[3] == 0 or w.shape[3] % x.shape[3]:
            raise self.fail(f"DepthwiseConv2D needs a 1xKHxKWxC filter with C a multiple of "
                            f"the input channels, got {x.shape} and {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        n, geo = conv_geometry(self.op, x, w, y, depthwise=True)
        cin, oh, ow, cout, kh, kw = geo[2:8]
        pad = -(-cout // 8) * 8
        self.upload_padded(np.asarray(w.data, np.float32).reshape(kh * kw, cout), cout, pad)
        lo, hi = clamp_of(self.op)
        ints = [np.int32(v) for v in geo[:6] + [pad, cout // cin] + geo[6:]]
        self.launch(self.kernel("conv.cl", "depthwise"), (pad // 8, -(-ow // DPIX), n * oh),
                    None, x.buffer, self.wt, self.bias, y.buffer, *ints, lo, hi)


@register("BatchMatMul")
class BatchMatMulLayer(ClKernel):
    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        adj_x, adj_y = self.op.params.get("adj_x", False), self.op.params.get("adj_y", False)
        ra, ca = a.shape[-2:]
        rb, cb = b.shape[-2:]
        rows, inner = (ca, ra) if adj_x else (ra, ca)
        cols = rb if adj_y else cb
        a_si, a_sk = (1, ca) if adj_x else (ca, 1)
        b_sk, b_sj = (1, cb) if adj_y else (cb, 1)
        batch = y.shape[:-2]
        nb = int(np.prod(batch, dtype=np.int64))
        idx = np.indices(batch).reshape(len(batch), -1) if batch else np.zeros((0, 1), int)

        def offsets(shape):
            lead = shape[:-2]
            lead = (1,) * (len(batch) - len(lead)) + tuple(lead)
            step = int(shape[-1] * shape[-2])
            off = np.zeros(max(nb, 1), np.int64)
            stride = step
            for d in range(len(batch) - 1, -1, -1):
                off += np.where(lead[d] == 1, 0, idx[d]) * stride
                stride *= lead[d]
            return self.const_buffer(off.astype(np.int32))

        self.aoff, self.boff = offsets(a.shape), offsets(b.shape)
        ints = [np.int32(v) for v in (rows, cols, inner, a_si, a_sk, b_sk, b_sj)]
        if not y.size:
            return
        self.launch(self.kernel("conv.cl", "batch_matmul"),
                    (-(-cols // 8), -(-rows // 4), max(nb, 1)), None,
                    a.buffer, b.buffer, y.buffer, self.aoff, self.boff, *ints)
