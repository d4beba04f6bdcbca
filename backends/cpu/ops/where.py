"""WHERE: the coordinates of the true elements; run() sizes the output (core/ops/where.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.where import WhereBase
from .common import register


@register("Where")
class WhereLayer(WhereBase):
    """The coordinates (int64, [n, rank]) of the true (non-zero) elements, row-major order."""

    def run(self) -> None:
        coords = np.argwhere(self.inputs[0].buffer)
        out = self.outputs[0]
        out.resize(coords.shape)
        out.buffer[...] = coords
