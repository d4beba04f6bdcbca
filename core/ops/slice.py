"""SLICE and STRIDED_SLICE (TFLite's slice.cc, strided_slice.cc): the output is a view of the
input, built at configure from constant begin/size/end/strides (out-of-bounds ones fail the
compile), else in every run. STRIDED_SLICE follows TFLite's masks and offset
(core/compiler/shape_rules_indexing.strided_slice_plan)."""
from __future__ import annotations

import numpy as np

from ..compiler.shape_rules_indexing import strided_slice_plan
from .movement import MoveKernel


class SliceBase(MoveKernel):
    """inputs (x, begin, size); the output shape holds the size (-1 resolved)."""

    index_inputs = (1, 2)

    def validate(self) -> None:
        super().validate()
        self.fixed = self.const(1) is not None

    def view(self) -> np.ndarray:
        x, out = self.buf(0), self.out
        begin = [int(b) for b in self.buf(1).reshape(-1)]
        if len(begin) != x.ndim or out.ndim != x.ndim:
            raise ValueError(f"slice begin {begin} does not fit the input shape {x.shape}")
        for b, s, d in zip(begin, out.shape, x.shape):
            if b < 0 or b + s > d:
                raise ValueError(f"slice begin {begin} with size {out.shape} is out of bounds "
                                 f"for the input shape {x.shape}")
        return x[tuple(slice(b, b + s) for b, s in zip(begin, out.shape))]

    def prepare(self) -> None:
        self.src = self.view() if self.fixed else None


class StridedSliceBase(MoveKernel):
    """inputs (x, begin, end, strides) with TFLite's masks and offset."""

    def validate(self) -> None:
        self.check_index_dtype(1, 2, 3, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.fixed = all(self.const(i) is not None for i in (1, 2, 3))

    def view(self) -> np.ndarray:
        x = self.buf(0)
        plan = strided_slice_plan(x.shape, self.buf(1), self.buf(2), self.buf(3),
                                  self.op.params)
        if plan.shape != self.out.shape:
            raise ValueError(f"strided slice gives {plan.shape}, the output is "
                             f"{self.out.shape}")
        return x.reshape(plan.effective)[plan.index]

    def prepare(self) -> None:
        if self.fixed:
            try:
                self.src = self.view()
            except ValueError as e:
                raise self.fail(str(e)) from None
        else:
            self.src = None


__all__ = ["SliceBase", "StridedSliceBase"]
