"""Ops whose result is a shape: SHAPE, RANK, BROADCAST_ARGS (TFLite's shape.cc, rank.cc,
broadcast_args.cc)."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class ShapeBase(MoveKernel):
    def validate(self) -> None:
        if self.outputs[0].dtype not in (np.int32, np.int64):
            raise self.fail(f"SHAPE gives int32 or int64, not {self.outputs[0].dtype}")


class RankBase(MoveKernel):
    def validate(self) -> None:
        if self.outputs[0].dtype not in (np.int32, np.int64):
            raise self.fail(f"RANK gives int32, not {self.outputs[0].dtype}")


class BroadcastArgsBase(MoveKernel):
    index_inputs = (0, 1)


__all__ = ["ShapeBase", "RankBase", "BroadcastArgsBase"]
