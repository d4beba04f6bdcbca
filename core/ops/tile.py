"""TILE and BROADCAST_TO (TFLite's tile.cc, broadcast_to.cc): the input repeated to the
output's shape. The multiples / target shape are in the output's shape (the shape rules
computed it, at run time for computed parameters)."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class TileBase(MoveKernel):
    index_inputs = (1,)


class BroadcastToBase(MoveKernel):
    index_inputs = (1,)

    def prepare(self) -> None:
        """The check that the input broadcasts to the output's shape."""
        x, out = self.buf(0), self.out
        try:
            if np.broadcast_shapes(x.shape, out.shape) != out.shape:
                raise ValueError
        except ValueError:
            raise self.fail(f"cannot broadcast {x.shape} to {out.shape}") from None


__all__ = ["TileBase", "BroadcastToBase"]
