"""The helpers of acl_cl's convolution and GEMM kernels (program conv.cl): the constant-weights
check, the convolution's arguments (core/ops/window.py's geometry in the kernels' order), the
conv_gemm blocking and launch size, and the weights and bias uploaded padded to whole vectors of
channels. The kernels: conv2d.py, depthwise_conv2d.py, fully_connected.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.window import conv_geometry
from .common import ClKernel, check_act, clamp_of


def const_weights(op, graph, pos=1) -> tuple[bool, str]:
    """`check_params` of the kernels with uploaded weights: input `pos` constant, a clamp."""
    w = graph.operands[op.inputs[pos]]
    if not w.is_constant:
        return False, f"acl_cl {op.type} needs constant weights (input {pos} is computed)"
    return check_act(op)


def conv_args(op, x, w, y, depthwise: bool = False) -> tuple[int, list[int]]:
    """(batch, [h, w, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw, pad_top, pad_left]) of an
    NHWC convolution with an OHWI filter (1HWC when depthwise)."""
    cout = w.shape[3] if depthwise else w.shape[0]
    g = conv_geometry(op.params, x.shape, w.shape[1:3], y.shape)
    return g.n, [g.h, g.w, g.c, g.oh, g.ow, cout, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl]


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
