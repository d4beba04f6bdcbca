"""SELECT and SELECT_V2: what every backend's kernels share (TFLite's select.cc Prepare).

out = condition ? x : y elementwise, with a bool condition and x, y and the output of one
dtype; any dtype, quantized ones included (the interpreter moves the stored values and ignores
differing quantization parameters). SELECT_V2 broadcasts all three; SELECT takes a condition of
x's shape, a scalar, or (x of rank 2 or more) a rank-1 condition that picks whole rows of x or
y. Kernels: backends/cpu/ops/select.py, backends/acl_neon/ops/select.py."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class SelectV2Base(MoveKernel):
    """out = where(condition, x, y), all three broadcast; x (input 1) decides support."""

    data = 1

    def validate(self) -> None:
        if self.inputs[0].dtype != np.bool_:
            raise self.fail(f"the condition must be bool, not {self.inputs[0].dtype}")
        if self.inputs[1].dtype != self.inputs[2].dtype:
            raise self.fail(f"x and y differ in dtype: {self.inputs[1].dtype}, "
                            f"{self.inputs[2].dtype}")
        self.check_same_dtype(1)

    def cond_shape(self) -> tuple[int, ...]:
        """The condition's shape as it broadcasts against x and y."""
        return tuple(self.inputs[0].shape)

    def check_shapes(self) -> tuple[int, ...]:
        """cond_shape(), after checking that condition, x and y broadcast to the output."""
        c, x, y = self.cond_shape(), self.inputs[1].shape, self.inputs[2].shape
        out = self.outputs[0].shape
        try:
            np.broadcast_shapes(c, x, y, out)
        except ValueError:
            raise self.fail(f"condition {self.inputs[0].shape}, x {x} and y {y} do not "
                            f"broadcast to {out}") from None
        return c


class SelectBase(SelectV2Base):
    """SELECT: a rank-1 condition against x of rank 2 or more picks whole rows."""

    def cond_shape(self) -> tuple[int, ...]:
        c, x = tuple(self.inputs[0].shape), self.inputs[1].shape
        if len(c) == 1 and len(x) > 1:
            return c + (1,) * (len(x) - 1)
        return c


__all__ = ["SelectBase", "SelectV2Base"]
