"""TILE and BROADCAST_TO: the input repeated to the output's shape, as a copy into a view of
the output (TILE) or a broadcasting copy (BROADCAST_TO). Parameters: core/ops/tile.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.tile import BroadcastToBase, TileBase
from .common import register


@register("BroadcastTo")
class BroadcastToLayer(BroadcastToBase):
    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.inputs[0].buffer)


@register("Tile")
class TileLayer(TileBase):
    """The output seen as (m0, d0, m1, d1, ...) is the input (1, d0, 1, d1, ...) broadcast."""

    def prepare(self) -> None:
        x, out = self.buf(0), self.out
        if x.ndim != out.ndim:
            raise self.fail(f"cannot tile rank {x.ndim} to rank {out.ndim}")
        split, ones = [], []
        for d, o in zip(x.shape, out.shape):
            m = o // d if d else 1
            if m * d != o:
                raise self.fail(f"output {out.shape} is no tiling of {x.shape}")
            split += [m, d]
            ones += [1, d]
        self.dst = out.reshape(split)
        self.src = x.reshape(ones)

    def run(self) -> None:
        np.copyto(self.dst, self.src)
