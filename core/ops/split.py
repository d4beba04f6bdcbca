"""SPLIT, SPLIT_V and UNPACK (TFLite's split.cc, split_v.cc, unpack.cc): the outputs are views
of the input (`parts`, `pairs`), built at configure from constant axes and sizes, else in
every run. SPLIT_V's one -1 size takes the rest (core/compiler/shape_rules_indexing.split_sizes)."""
from __future__ import annotations

import numpy as np

from ..compiler.shape_rules_indexing import norm_axis, split_sizes
from .movement import MoveKernel


class SplitBase(MoveKernel):
    """inputs (axis, x); num_splits equal parts along axis."""

    data = 1

    def validate(self) -> None:
        self.check_index_dtype(0)
        self.check_same_dtype(1)
        self.axis = None if self.const(0) is None else self.scalar(0)
        if self.axis is not None and self.static(1):
            rank = len(self.inputs[1].shape)
            if not -rank <= self.axis < rank:
                raise self.fail(f"axis {self.axis} out of range for rank {rank}")

    def views(self, axis: int) -> list[np.ndarray]:
        return np.split(self.buf(1), len(self.outputs), axis=axis)

    def prepare(self) -> None:
        self.parts = None if self.axis is None else self.views(self.axis)


class SplitVBase(MoveKernel):
    """inputs (x, size_splits, axis); one -1 size takes the rest."""

    def validate(self) -> None:
        self.check_index_dtype(1)
        self.check_index_dtype(2, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.fixed = self.const(1) is not None and self.const(2) is not None

    def views(self) -> list[np.ndarray]:
        x = self.buf(0)
        axis = norm_axis(self.scalar(2), x.ndim)
        sizes = split_sizes([int(s) for s in self.buf(1).reshape(-1)], x.shape[axis])
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)

    def prepare(self) -> None:
        self.parts = self.views() if self.fixed else None


class UnpackBase(MoveKernel):
    def validate(self) -> None:
        self.check_same_dtype(0)
        self.axis = int(self.op.params.get("axis", 0))
        if self.static(0):
            shape = self.inputs[0].shape
            if not -len(shape) <= self.axis < len(shape):
                raise self.fail(f"axis {self.axis} out of range for rank {len(shape)}")
            if shape[self.axis] != len(self.outputs):
                raise self.fail(f"cannot unpack dimension {shape[self.axis]} into "
                                f"{len(self.outputs)} outputs")

    def prepare(self) -> None:
        x = self.buf(0)
        axis = self.axis % x.ndim
        self.pairs = [(o.buffer, x[(slice(None),) * axis + (k,)])
                      for k, o in enumerate(self.outputs)]


__all__ = ["SplitBase", "SplitVBase", "UnpackBase"]
