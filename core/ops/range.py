"""RANGE (TFLite's range.cc): start, start + delta, ... below limit, in int32, int64 or
float32; the output's size is the shape rule's."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class RangeBase(MoveKernel):
    @classmethod
    def supports(cls, op, graph):
        dtype = graph.operands[op.inputs[0]].dtype
        if dtype not in (np.int32, np.int64, np.float32):
            return False, f"{cls.backend_id} RANGE supports int32, int64 and float32, not {dtype}"
        return True, ""

    def validate(self) -> None:
        dtypes = {t.dtype for t in self.inputs} | {self.outputs[0].dtype}
        if len(dtypes) != 1:
            raise self.fail(f"start, limit, delta and output differ in dtype: "
                            f"{sorted(str(d) for d in dtypes)}")


__all__ = ["RangeBase"]
