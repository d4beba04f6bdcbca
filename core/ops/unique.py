"""UNIQUE (TFLite's unique.cc): y, the distinct values of a 1-D x in order of first
appearance; idx, each element's position in y. The outputs' shapes follow the result: run()
sizes them (`shape_from_run`)."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class UniqueBase(MoveKernel):
    shape_from_run = True

    def validate(self) -> None:
        self.check_same_dtype(0, 0)
        if self.outputs[1].dtype not in (np.int32, np.int64):
            raise self.fail(f"UNIQUE indices are int32 or int64, not {self.outputs[1].dtype}")
        if self.static(0) and len(self.inputs[0].shape) != 1:
            raise self.fail(f"UNIQUE needs a 1-D input, got {self.inputs[0].shape}")


__all__ = ["UniqueBase"]
