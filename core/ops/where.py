"""WHERE with one input (TFLite's where.cc): the coordinates (int64, [n, rank]) of the true
(non-zero) elements, row-major order. The output's shape follows the result: run() sizes it
(`shape_from_run`)."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class WhereBase(MoveKernel):
    shape_from_run = True

    def validate(self) -> None:
        if self.outputs[0].dtype != np.int64:
            raise self.fail(f"WHERE gives int64 coordinates, not {self.outputs[0].dtype}")


__all__ = ["WhereBase"]
