"""Float32 ResizeBilinear on native code (module _spatial): the validation and the float32
source coordinates of core/ops/resize.py (the cpu kernel's), one native call per run."""
from __future__ import annotations

import numpy as np

from ....core.ops.resize import ResizeBilinearBase, interpolation, resize_mode
from .base import register
from .spatial import NeonSpatial


@register("ResizeBilinear")
class ResizeBilinearLayer(NeonSpatial, ResizeBilinearBase):
    def prepare(self) -> None:
        n, h, w, c = self.buf(0).shape
        _, oh, ow, _ = self.out.shape
        align, half = resize_mode(self.op.params)
        y0, y1, dy = interpolation(oh, h, align, half)      # the cpu kernel's coordinates
        x0, x1, dx = interpolation(ow, w, align, half)
        i32, f32 = np.int32, np.float32
        self.plan = self.lib.resize_plan(
            n, h, w, c, oh, ow, y0.astype(i32), y1.astype(i32), dy.astype(f32),
            x0.astype(i32), x1.astype(i32), dx.astype(f32))
