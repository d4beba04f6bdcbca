"""Quantized RESIZE_BILINEAR (uint8, int8, int16) as TFLite's resize_bilinear.cc runs it:

- uint8: optimized_ops::ResizeBilinear -> ResizeBilinearGenericSmallChannel<uint8>: float32
  source coordinates (ComputeInterpolationValues), four float32 weights (1 - dy) * (1 - dx),
  (1 - dy) * dx, dy * (1 - dx), dy * dx, the weighted sum accumulated left to right in float32,
  plus 0.5, truncated to uint8.
- int8 and int16: reference_ops::ResizeBilinearInteger: 10-bit fixed-point coordinates
  (scale_10 = (1024 * in + out / 2) / out, or (1024 * (in - 1) + (out - 1) / 2) / (out - 1)
  with align_corners; half-pixel: v * scale_10 + scale_10 / 2 - 512), weights in 1/1024 steps,
  a 20-bit product sum rounded half away from zero ((s +- 2^19) / 2^20, C division).
Values stay in the input's integer domain: the output's scale and zero point must equal the
input's (TFLite does not requantize here), so a mismatch is refused (core/ops/resize.py: the
validation and the float32 coordinates). Float form: backends/cpu/ops/resize.py.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.resize import QResizeBilinearBase, coordinates, interpolation
from .base import U8, quantized, register

I64 = np.int64
F32 = np.float32


def _cdiv(a, b):
    """C integer division (truncation toward zero) of int64 arrays by a positive b."""
    q = np.abs(a) // b
    return np.where(a < 0, -q, q)


def integer_interpolation(out_size: int, in_size: int, align: bool, half: bool):
    """ComputeInterpolationValuesInteger: (scaled source 1/1024 units, lower, upper) per output."""
    if align and out_size > 1:
        scale = (1024 * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1)
    else:
        scale = (1024 * in_size + out_size // 2) // out_size
    v = np.arange(out_size, dtype=I64)
    src = v * scale + scale // 2 - 512 if half else v * scale
    lo = np.maximum(_cdiv(src, 1024), 0)
    hi = np.minimum(_cdiv(src + 1023, 1024), in_size - 1)
    return src, lo, hi


@register("ResizeBilinear", when=quantized)
class QResizeBilinearLayer(QResizeBilinearBase):
    def prepare(self) -> None:
        args = self.op.params, self.buf(0).shape, self.out.shape
        self.integer = self.inputs[0].dtype != U8
        if self.integer:        # fractions in 1/1024 steps
            (sy, self.y0, self.y1), (sx, self.x0, self.x1) = coordinates(integer_interpolation,
                                                                         *args)
            fy, fx, one = sy - 1024 * self.y0, sx - 1024 * self.x0, 1024
        else:                   # float32 fractions
            (self.y0, self.y1, fy), (self.x0, self.x1, fx) = coordinates(interpolation, *args)
            fy, fx, one = fy.astype(F32), fx.astype(F32), F32(1)
        # the weights of the corners top-left, top-right, bottom-left, bottom-right
        self.weights = [(wy[:, None] * wx[None, :])[None, :, :, None]
                        for wy in (one - fy, fy) for wx in (one - fx, fx)]

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        dtype = I64 if self.integer else F32
        top, bottom = x[:, self.y0].astype(dtype), x[:, self.y1].astype(dtype)
        corners = (top[:, :, self.x0], top[:, :, self.x1], bottom[:, :, self.x0],
                   bottom[:, :, self.x1])
        s = sum(c * w for c, w in zip(corners, self.weights))     # left to right
        if self.integer:
            res = _cdiv(s + np.where(s > 0, 1 << 19, -(1 << 19)), 1 << 20)
        else:
            res = (s + F32(0.5)).astype(I64)
        np.copyto(out, res, casting="unsafe")
