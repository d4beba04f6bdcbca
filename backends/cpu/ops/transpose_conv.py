"""TRANSPOSE_CONV (float32): one matmul of the input pixels against the filter gives every
input pixel's contribution to a KHxKW window of the output; the windows are scatter-added at
`stride` steps into a zeroed buffer, which is cropped by the top/left padding.

Inputs (TFLite order): output_shape int32[4], weights [O, KH, KW, I], input NHWC, optional bias
[O]. Padding follows TFLite: the SAME padding of a forward convolution from the output back to
the input (`total // 2` before, the rest after); VALID pads nothing. A non-constant
output_shape makes the output dynamic (the shape rule raises Dynamic at compile time).

`TransposeConvPlan` is shared with MediaPipe's Convolution2DTransposeBias (mediapipe.py).
"""
from __future__ import annotations

import numpy as np

from ....core.compiler.shape_inference import conv_out, rule
from .common import CpuKernel, activation, register, same_padding

F32 = np.dtype(np.float32)


def transpose_conv_shape(out_shape, x: tuple, w: tuple) -> tuple[int, ...]:
    """Check an output_shape value against the input [N,H,W,I] and weights [O,KH,KW,I]."""
    out = tuple(int(d) for d in np.asarray(out_shape).reshape(-1))
    if len(out) != 4:
        raise ValueError(f"output_shape must hold 4 values (NHWC), got {out}")
    if len(x) != 4 or len(w) != 4:
        raise ValueError(f"needs a 4-D input and 4-D weights, got {tuple(x)} and {tuple(w)}")
    if x[3] != w[3]:
        raise ValueError(f"input channels {x[3]} differ from the weights' {w[3]} "
                         f"(weights are [O, KH, KW, I])")
    if out[0] != x[0]:
        raise ValueError(f"output_shape batch {out[0]} differs from the input's {x[0]}")
    if out[3] != w[0]:
        raise ValueError(f"output_shape channels {out[3]} differ from the weights' {w[0]}")
    if any(d < 0 for d in out):
        raise ValueError(f"output_shape {out} has a negative dimension")
    return out


@rule("TransposeConv")
def _transpose_conv_rule(op, shapes, v):
    value = v.need(op.inputs[0], "output_shape")
    return [transpose_conv_shape(value, shapes[2], shapes[1])]


def transpose_padding(padding: str, oh: int, ow: int, kh: int, kw: int, sh: int,
                      sw: int) -> tuple[int, int]:
    """(top, left) padding of a transposed convolution with output size (oh, ow)."""
    if padding != "SAME":
        return 0, 0
    top, _ = same_padding(oh, kh, sh, 1, conv_out(oh, kh, sh, 1, "SAME"))
    left, _ = same_padding(ow, kw, sw, 1, conv_out(ow, kw, sw, 1, "SAME"))
    return top, left


class TransposeConvPlan:
    """Buffers and views of one transposed convolution for fixed shapes, cropping (top, left)
    off the full result. `compute(x, wmat, bias, out)` fills `out` ([N, OH, OW, O]); `wmat` comes from `weights()`."""

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

    def compute(self, x: np.ndarray, wmat: np.ndarray, bias: np.ndarray | None,
                out: np.ndarray) -> None:
        np.matmul(x.reshape(self.x_rows, self.cin), wmat, out=self.cols)
        self.full.fill(0)
        for dst, src in self.pairs:
            np.add(dst, src, out=dst)
        if bias is not None:
            np.add(self.crop, bias, out=out)
        else:
            np.copyto(out, self.crop)


@register("TransposeConv")
class TransposeConvLayer(CpuKernel):
    """inputs (output_shape, weights, input, bias?); float32."""

    @classmethod
    def supports(cls, op, graph):
        if len(op.inputs) < 3 or op.inputs[2] < 0 or op.inputs[1] < 0:
            return False, "TRANSPOSE_CONV needs output_shape, weights and input"
        x = graph.operands[op.inputs[2]]
        if x.dtype != F32:
            return False, f"{cls.backend_id} TransposeConv supports float32, not {x.type_name}"
        return True, ""

    def validate(self) -> None:
        shape_t, w, x = self.inputs[0], self.inputs[1], self.inputs[2]
        bias = self.inputs[3] if len(self.inputs) > 3 else None
        if shape_t.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise self.fail(f"output_shape must be int32, not {shape_t.dtype}")
        for name, t in (("weights", w), ("output", self.outputs[0])) + (
                (("bias", bias),) if bias is not None else ()):
            if t.dtype != F32:
                raise self.fail(f"{name} must be float32 like the input, not {t.dtype}")
        if not w.is_dynamic and len(w.shape) != 4:
            raise self.fail(f"weights must be 4-D [O, KH, KW, I], got {w.shape}")
        if bias is not None and not bias.is_dynamic and not w.is_dynamic \
                and tuple(bias.shape) != (w.shape[0],):
            raise self.fail(f"bias must have shape ({w.shape[0]},), got {bias.shape}")
        p = self.op.params
        if p.stride_h < 1 or p.stride_w < 1:
            raise self.fail(f"strides must be positive, got ({p.stride_h}, {p.stride_w})")
        if p.padding not in ("SAME", "VALID"):
            raise self.fail(f"unknown padding {p.padding!r}")
        self.act = activation(p.get("fused_activation_function", "NONE"))
        if not self.dynamic:
            try:
                transpose_conv_shape(self.outputs[0].shape, x.shape, w.shape)
            except ValueError as e:
                raise self.fail(str(e)) from None

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
