"""MediaPipe's custom op Convolution2DTransposeBias (float32), bundled as a default custom
kernel: a transposed convolution with a bias and no output_shape input.

Inputs: input NHWC, weights [O, KH, KW, I], bias [O]. The custom options are the raw bytes of
TFLite's TfLiteTransposeConvParams: int32 padding (1 SAME, 2 VALID), int32 stride_width, int32
stride_height (little endian). The output size is stride * (in - 1) + kernel - pad, where SAME
pads max(0, kernel - (in - 1) % stride - 1) in total, half of it (rounded down) before.
"""
from __future__ import annotations

import struct

import numpy as np

from ....core.ops.bundled import BundledKernel, bundle
from .transpose_conv import TransposeConvPlan

CODE = "Convolution2DTransposeBias"
PADDINGS = {1: "SAME", 2: "VALID"}
F32 = np.dtype(np.float32)


def parse_options(options: bytes) -> tuple[str, int, int]:
    """(padding, stride_h, stride_w) from the 12-byte options; ValueError when malformed."""
    if options is None or len(options) < 12:
        raise ValueError(f"{CODE} needs 12 bytes of options (padding, stride_w, stride_h), got "
                         f"{0 if options is None else len(options)}")
    pad, sw, sh = struct.unpack_from("<iii", options)
    if pad not in PADDINGS:
        raise ValueError(f"{CODE}: unknown padding {pad} (1: SAME, 2: VALID)")
    if sh < 1 or sw < 1:
        raise ValueError(f"{CODE}: strides must be positive, got ({sh}, {sw})")
    return PADDINGS[pad], sh, sw


def total_padding(padding: str, size: int, k: int, stride: int) -> int:
    return max(0, k - (size - 1) % stride - 1) if padding == "SAME" else 0


def output_shape(x: tuple, w: tuple, padding: str, sh: int, sw: int) -> tuple[int, ...]:
    if len(x) != 4 or len(w) != 4:
        raise ValueError(f"{CODE} needs a 4-D input and 4-D weights, got {tuple(x)} and "
                         f"{tuple(w)}")
    if x[3] != w[3]:
        raise ValueError(f"{CODE}: input channels {x[3]} differ from the weights' {w[3]} "
                         f"(weights are [O, KH, KW, I])")
    n, h, wd, _ = x
    cout, kh, kw, _ = w
    oh = sh * (h - 1) + kh - total_padding(padding, h, kh, sh)
    ow = sw * (wd - 1) + kw - total_padding(padding, wd, kw, sw)
    return n, oh, ow, cout


@bundle
class Convolution2DTransposeBias(BundledKernel):
    """The bundled kernel."""

    code = CODE
    parse_options = staticmethod(parse_options)

    @staticmethod
    def check_op(op, graph) -> tuple[bool, str]:
        if len(op.inputs) != 3 or len(op.outputs) != 1 or min(op.inputs) < 0:
            return False, "needs 3 inputs (input, weights, bias) and 1 output"
        for i in (*op.inputs, *op.outputs):
            if graph.operands[i].dtype != F32:
                return False, f"supports float32 only, not {graph.operands[i].type_name}"
        return True, ""

    @staticmethod
    def shape_rule(options, shapes) -> list:
        return [output_shape(shapes[0], shapes[1], *options)]

    def validate(self) -> None:
        self.padding, self.sh, self.sw = self.options_of(self.op)
        x, w, b = self.inputs
        if not self.dynamic:
            try:
                want = output_shape(x.shape, w.shape, self.padding, self.sh, self.sw)
            except ValueError as e:
                raise self.fail(str(e)) from None
            if tuple(b.shape) != (w.shape[0],):
                raise self.fail(f"bias must have shape ({w.shape[0]},), got {b.shape}")
            if tuple(self.outputs[0].shape) != want:
                raise self.fail(f"output shape {self.outputs[0].shape}, expected {want}")

    def prepare(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        out = self.outputs[0].buffer
        _, h, wd, _ = x.shape
        _, kh, kw, _ = w.shape
        top = total_padding(self.padding, h, kh, self.sh) // 2     # half, rounded down, before
        left = total_padding(self.padding, wd, kw, self.sw) // 2
        self.plan = TransposeConvPlan(x.shape, w.shape, out, self.sh, self.sw, top, left)
        self.wmat = TransposeConvPlan.weights(w.buffer) if w.is_constant else None

    def run(self) -> None:
        wmat = self.wmat if self.wmat is not None else TransposeConvPlan.weights(
            self.inputs[1].buffer)
        self.plan.compute(self.inputs[0].buffer, wmat, self.inputs[2].buffer,
                          self.outputs[0].buffer)

