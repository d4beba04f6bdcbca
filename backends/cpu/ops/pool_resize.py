"""AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR."""
from __future__ import annotations

import numpy as np

from .common import ANY, CpuKernel, clamp_activation, pool_windows, register, window_counts

@register("Pool2D")
class Pool2DLayer(CpuKernel):
    """A reduction over the window's taps: shifted views of a padded input, combined in place.
    Average pooling divides by the number of valid (unpadded) inputs, as TFLite does."""

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {self.inputs[0].shape}")
        self.act = clamp_activation(self.op.params.get("fused_activation_function"))

    def prepare(self) -> None:
        x = self.buf(0)
        kind = self.kind = self.op.subtype
        self.combine = np.maximum if kind == "MAX_POOL_2D" else np.add
        self.padded, self.interior, self.taps = pool_windows(
            self.op.params, x.shape, self.out.shape, 0, x.dtype)
        if kind != "MAX_POOL_2D":
            count = window_counts(self.taps, self.interior)
            self.inv_count = (1.0 / np.maximum(count, 1)).astype(x.dtype)
        self.padded.fill(-np.inf if kind == "MAX_POOL_2D" else 0)

    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        out = self.outputs[0].buffer
        taps = self.taps
        if self.kind == "L2_POOL_2D":
            np.square(taps[0], out=out)
            for t in taps[1:]:
                out += np.square(t)
            out *= self.inv_count
            np.sqrt(out, out=out)
        else:
            np.copyto(out, taps[0])
            for t in taps[1:]:
                self.combine(out, t, out=out)
            if self.kind == "AVERAGE_POOL_2D":
                out *= self.inv_count
        if self.act is not None:
            self.act(out)


def interpolation(out_size: int, in_size: int, align: bool, half: bool):
    """TFLite's source coordinates: (lower index, upper index, fraction) per output index."""
    scale = (in_size - 1) / (out_size - 1) if align and out_size > 1 else in_size / out_size
    v = np.arange(out_size, dtype=np.float32)
    src = (v + 0.5) * np.float32(scale) - 0.5 if half else v * np.float32(scale)
    lo = np.maximum(np.floor(src), 0).astype(np.int64)
    hi = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lo, hi, (src - lo).astype(np.float32)


@register("ResizeBilinear")
class ResizeBilinearLayer(CpuKernel):
    def validate(self) -> None:
        p = self.op.params
        if p.get("align_corners", False) and p.get("half_pixel_centers", False):
            raise self.fail("align_corners and half_pixel_centers cannot both be true")

    def prepare(self) -> None:
        p = self.op.params
        _, h, w, _ = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)
        self.y0, self.y1, dy = interpolation(oh, h, align, half)
        self.x0, self.x1, dx = interpolation(ow, w, align, half)
        self.dy = dy[None, :, None, None]
        self.dx = dx[None, None, :, None]

    def run(self) -> None:
        x = self.inputs[0].buffer
        top, bottom = x[:, self.y0], x[:, self.y1]
        rows = top + (bottom - top) * self.dy
        left, right = rows[:, :, self.x0], rows[:, :, self.x1]
        np.add(left, (right - left) * self.dx, out=self.outputs[0].buffer)


@register("ResizeNearestNeighbor")
class ResizeNearestNeighborLayer(CpuKernel):
    dtypes = ANY        # a gather: any dtype, quantized ones included
    quantized = True

    def prepare(self) -> None:
        p = self.op.params
        _, h, w, _ = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)

        def index(o: int, i: int) -> np.ndarray:
            scale = (i - 1) / (o - 1) if align and o > 1 else i / o
            v = np.arange(o, dtype=np.float32)
            src = (v + (0.5 if half else 0.0)) * np.float32(scale)
            idx = np.floor(src)
            if align:   # TfLiteRound: halves go away from zero (np.round goes to even)
                idx += (src - idx) >= 0.5
            return np.minimum(idx.astype(np.int64), i - 1)
        self.iy, self.ix = index(oh, h), index(ow, w)

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.inputs[0].buffer[:, self.iy][:, :, self.ix])
