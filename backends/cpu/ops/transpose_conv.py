"""TRANSPOSE_CONV (float32): one matmul of the input pixels against the filter gives every
input pixel's contribution to a KHxKW window of the output; the windows are scatter-added at
`stride` steps into a zeroed buffer, which is cropped by the top/left padding. The checks, the
output shape rule and the padding are core/ops/transpose_conv.py's (TransposeConvBase).

`TransposeConvPlan` is shared with MediaPipe's Convolution2DTransposeBias (mediapipe.py) and
the quantized form, quant/qtranspose_conv.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.transpose_conv import TransposeConvBase, transpose_padding
from .common import register


class TransposeConvPlan:
    """Buffers and views of one transposed convolution for fixed shapes, cropping (top, left)
    off the full result. `compute(x, wmat, bias, out)` fills `out` ([N, OH, OW, O]; `wmat`
    from `weights()`); a kernel with its own GEMM fills `cols` and calls `scatter()`."""

    def __init__(self, x_shape: tuple, w_shape: tuple, out: np.ndarray, sh: int, sw: int,
                 top: int, left: int) -> None:
        n, h, w, cin = x_shape
        cout, kh, kw, _ = w_shape
        _, oh, ow, _ = out.shape
        self.top, self.left = top, left
        fh = max((h - 1) * sh + kh, self.top + oh)
        fw = max((w - 1) * sw + kw, self.left + ow)
        self.full = np.zeros((n, fh, fw, cout), out.dtype)
        self.cols = np.empty((n * h * w, kh * kw * cout), out.dtype)
        cols6 = self.cols.reshape(n, h, w, kh, kw, cout)
        self.pairs = [(self.full[:, i:i + (h - 1) * sh + 1:sh, j:j + (w - 1) * sw + 1:sw, :],
                       cols6[:, :, :, i, j, :]) for i in range(kh) for j in range(kw)]
        self.crop = self.full[:, self.top:self.top + oh, self.left:self.left + ow, :]
        self.x_rows = n * h * w
        self.cin = cin

    @staticmethod
    def weights(w: np.ndarray) -> np.ndarray:
        """[O, KH, KW, I] -> [I, KH*KW*O], the matmul's right-hand side."""
        return np.ascontiguousarray(w.transpose(3, 1, 2, 0)).reshape(w.shape[3], -1)

    def scatter(self) -> None:
        """Add every input pixel's KHxKW window (`cols`) into the zeroed `full` at stride
        steps; `crop` then holds the result."""
        self.full.fill(0)
        for dst, src in self.pairs:
            np.add(dst, src, out=dst)

    def compute(self, x: np.ndarray, wmat: np.ndarray, bias: np.ndarray | None,
                out: np.ndarray) -> None:
        np.matmul(x.reshape(self.x_rows, self.cin), wmat, out=self.cols)
        self.scatter()
        if bias is not None:
            np.add(self.crop, bias, out=out)
        else:
            np.copyto(out, self.crop)


@register("TransposeConv")
class TransposeConvLayer(TransposeConvBase):
    """inputs (output_shape, weights, input, bias?); float32."""

    def prepare(self) -> None:
        p = self.op.params
        w, out = self.inputs[1], self.out
        top, left = transpose_padding(p.padding, out.shape[1], out.shape[2], w.shape[1],
                                      w.shape[2], p.stride_h, p.stride_w)
        self.plan = TransposeConvPlan(self.inputs[2].shape, w.shape, out, p.stride_h,
                                      p.stride_w, top, left)
        self.wmat = TransposeConvPlan.weights(w.buffer) if w.is_constant else None

    def run(self) -> None:
        wmat = self.wmat if self.wmat is not None else TransposeConvPlan.weights(self.buf(1))
        out = self.out
        self.plan.compute(self.buf(2), wmat, self.buf(3), out)
        if self.act is not None:
            self.act(out)
