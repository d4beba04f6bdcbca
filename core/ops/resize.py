"""RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: the parameters (align_corners,
half_pixel_centers), validation and source coordinates of TFLite's resize_bilinear.cc and
resize_nearest_neighbor.cc that every backend shares.

- Bilinear source coordinates (`interpolation`, ComputeInterpolationValues): float32
  src = (v + 0.5) * scale - 0.5 with half-pixel centers, else v * scale, scale = in / out, or
  (in - 1) / (out - 1) with align_corners; lower index floor(src) (at least 0), upper index
  ceil(src) (at most in - 1), fraction src - lower.
- Nearest source index (`nearest_index`): floor((v + 0.5 if half-pixel) * scale), rounded with
  TfLiteRound (halves away from zero) under align_corners, at most in - 1.
- Quantized RESIZE_BILINEAR (uint8, int8, int16) keeps the input's integer domain: the output's
  scale and zero point must equal the input's (TFLite does not requantize), so a mismatch is
  refused. RESIZE_NEAREST_NEIGHBOR is a gather: any dtype, quantized ones included.

Kernels: backends/cpu/ops/resize.py (float, and nearest for any dtype) and
backends/cpu/ops/quant/qresize.py (quantized bilinear), acl_neon ops/resize.py, acl_cl
ops/resize.py (bilinear) and ops/movement.py (nearest, as an index table).
"""
from __future__ import annotations

import numpy as np

from .base import ANY, OpKernel
from .quant_base import QuantOpKernel


def resize_mode(params) -> tuple[bool, bool]:
    """(align_corners, half_pixel_centers) of a resize op."""
    return params.get("align_corners", False), params.get("half_pixel_centers", False)


def mode_error(params) -> str:
    """Why the op's corner options are invalid ("" when they are valid)."""
    align, half = resize_mode(params)
    return "align_corners and half_pixel_centers cannot both be true" if align and half else ""


def interpolation(out_size: int, in_size: int, align: bool, half: bool):
    """TFLite's source coordinates: (lower index, upper index, fraction) per output index."""
    scale = (in_size - 1) / (out_size - 1) if align and out_size > 1 else in_size / out_size
    v = np.arange(out_size, dtype=np.float32)
    src = (v + 0.5) * np.float32(scale) - 0.5 if half else v * np.float32(scale)
    lo = np.maximum(np.floor(src), 0).astype(np.int64)
    hi = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lo, hi, (src - lo).astype(np.float32)


def nearest_index(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    """RESIZE_NEAREST_NEIGHBOR's source index per output index (int64)."""
    scale = (in_size - 1) / (out_size - 1) if align and out_size > 1 else in_size / out_size
    v = np.arange(out_size, dtype=np.float32)
    src = (v + (0.5 if half else 0.0)) * np.float32(scale)
    idx = np.floor(src)
    if align:   # TfLiteRound: halves go away from zero (np.round goes to even)
        idx += (src - idx) >= 0.5
    return np.minimum(idx.astype(np.int64), in_size - 1)


def coordinates(fn, params, in_shape, out_shape) -> tuple:
    """`fn` (`interpolation`, `nearest_index`, ...) under the op's corner options for the height,
    then the width of an NHWC resize: (fn(out_h, in_h, align, half), fn(out_w, in_w, ...))."""
    align, half = resize_mode(params)
    return (fn(out_shape[1], in_shape[1], align, half),
            fn(out_shape[2], in_shape[2], align, half))


class ResizeBilinearBase(OpKernel):
    """Float RESIZE_BILINEAR: valid corner options."""

    def validate(self) -> None:
        why = mode_error(self.op.params)
        if why:
            raise self.fail(why)


class QResizeBilinearBase(QuantOpKernel):
    """Quantized RESIZE_BILINEAR: valid corner options, the output of the input's type, scale
    and zero point."""

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        why = mode_error(self.op.params)
        if why:
            raise self.fail(why)
        if x.dtype != y.dtype:
            raise self.fail(f"quantized RESIZE_BILINEAR needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        self.check_same_quant(x, y)


class ResizeNearestNeighborBase(OpKernel):
    """RESIZE_NEAREST_NEIGHBOR: a gather, of any dtype (quantized ones included)."""

    dtypes = ANY
    quantized = True


__all__ = ["resize_mode", "mode_error", "interpolation", "nearest_index", "coordinates",
           "ResizeBilinearBase", "QResizeBilinearBase", "ResizeNearestNeighborBase"]
