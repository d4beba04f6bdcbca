"""ONE_HOT (TFLite's one_hot.cc): inputs (indices, depth, on_value, off_value); depth is the
output's size on `axis` (default -1, a new last axis). An index out of [0, depth) gives
off_value everywhere on its row."""
from __future__ import annotations

from .movement import MoveKernel


class OneHotBase(MoveKernel):
    data = 2

    def validate(self) -> None:
        self.check_index_dtype(0, 1)
        if self.inputs[3].dtype != self.inputs[2].dtype:
            raise self.fail("on_value and off_value differ in dtype")
        self.check_same_dtype(2)


__all__ = ["OneHotBase"]
