"""Float32 ResizeBilinear on native code (module _spatial): the validation and the float32 source
coordinates of core/ops/resize.py (the cpu kernel's), a native plan bound as the kernel's native
step."""
from __future__ import annotations

import numpy as np

from ....core.ops.resize import ResizeBilinearBase, coordinates, interpolation
from .base import register
from .spatial import NeonSpatial


@register("ResizeBilinear")
class ResizeBilinearLayer(NeonSpatial, ResizeBilinearBase):
    def prepare(self) -> None:
        x, y = self.buf(0), self.out
        n, h, w, c = x.shape
        _, oh, ow, _ = y.shape
        (y0, y1, dy), (x0, x1, dx) = coordinates(     # the cpu kernel's coordinates
            interpolation, self.op.params, x.shape, y.shape)
        i32, f32 = np.int32, np.float32
        self.plan = self.lib.resize_plan(
            n, h, w, c, oh, ow, y0.astype(i32), y1.astype(i32), dy.astype(f32),
            x0.astype(i32), x1.astype(i32), dx.astype(f32))
