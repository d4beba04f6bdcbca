"""RESIZE_BILINEAR (float) and RESIZE_NEAREST_NEIGHBOR (any dtype: a gather). Parameters,
validation and source coordinates: core/ops/resize.py. Quantized RESIZE_BILINEAR:
backends/cpu/ops/quant/qresize.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.resize import (ResizeBilinearBase, ResizeNearestNeighborBase, coordinates,
                                 interpolation, nearest_index)
from .common import register


@register("ResizeBilinear")
class ResizeBilinearLayer(ResizeBilinearBase):
    def prepare(self) -> None:
        (self.y0, self.y1, dy), (self.x0, self.x1, dx) = coordinates(
            interpolation, self.op.params, self.buf(0).shape, self.out.shape)
        self.dy = dy[None, :, None, None]
        self.dx = dx[None, None, :, None]

    def run(self) -> None:
        x = self.inputs[0].buffer
        top, bottom = x[:, self.y0], x[:, self.y1]
        rows = top + (bottom - top) * self.dy
        left, right = rows[:, :, self.x0], rows[:, :, self.x1]
        np.add(left, (right - left) * self.dx, out=self.outputs[0].buffer)


@register("ResizeNearestNeighbor")
class ResizeNearestNeighborLayer(ResizeNearestNeighborBase):
    def prepare(self) -> None:
        self.iy, self.ix = coordinates(nearest_index, self.op.params, self.buf(0).shape,
                                       self.out.shape)

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.inputs[0].buffer[:, self.iy][:, :, self.ix])
