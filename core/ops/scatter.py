"""Ops that write values into a tensor at indices: SCATTER_ND, SPARSE_TO_DENSE,
DYNAMIC_UPDATE_SLICE (TFLite's scatter_nd.cc, sparse_to_dense.cc, dynamic_update_slice.cc).
Index inputs are data: they are read in every run and checked there (an index out of range
fails the run)."""
from __future__ import annotations

import numpy as np

from .base import NUMERIC
from .movement import DataKernel, MoveKernel

NUMERIC_8BIT_BOOL = NUMERIC | {np.dtype(t) for t in (np.int8, np.uint8, np.bool_)}


class ScatterNDBase(DataKernel):
    """inputs (indices [..., K], updates, shape): zeros of `shape` with the updates added at
    the indexed slices (repeated indices add up)."""

    data = 1
    dtypes = NUMERIC_8BIT_BOOL
    index_inputs = (0, 2)


class SparseToDenseBase(DataKernel):
    """inputs (indices [N, rank] / [N] / scalar, output_shape, values [N] or scalar,
    default_value): default everywhere, values at the indices."""

    data = 2
    dtypes = NUMERIC_8BIT_BOOL
    index_inputs = (0, 1)

    def validate(self) -> None:
        super().validate()
        if self.inputs[3].dtype != self.inputs[2].dtype:
            raise self.fail("values and default_value differ in dtype")


class DynamicUpdateSliceBase(MoveKernel):
    """inputs (operand, update, start_indices): operand with update written at the start
    indices, each clamped so that the update fits."""

    index_inputs = (2,)

    def validate(self) -> None:
        super().validate()
        if self.inputs[1].dtype != self.inputs[0].dtype:
            raise self.fail("operand and update differ in dtype")


__all__ = ["ScatterNDBase", "SparseToDenseBase", "DynamicUpdateSliceBase"]
