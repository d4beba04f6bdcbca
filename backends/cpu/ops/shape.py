"""SHAPE, RANK and BROADCAST_ARGS: shapes as int tensors (checks: core/ops/shape.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked, ints
from ....core.ops.shape import BroadcastArgsBase, RankBase, ShapeBase
from .common import register


@register("Shape")
class ShapeLayer(ShapeBase):
    def run(self) -> None:
        self.outputs[0].buffer[...] = self.inputs[0].shape


@register("Rank")
class RankLayer(RankBase):
    def run(self) -> None:
        self.out[...] = len(self.inputs[0].shape)


@register("BroadcastArgs")
class BroadcastArgsLayer(BroadcastArgsBase):
    def run(self) -> None:
        a, b = tuple(ints(self.buf(0))), tuple(ints(self.buf(1)))
        try:
            shape = np.broadcast_shapes(a, b)
        except ValueError:
            raise ValueError(f"shapes {a} and {b} do not broadcast") from None
        copy_checked(self.out, np.array(shape, self.out.dtype))
