"""SELECT and SELECT_V2 on cpu: out = where(condition, x, y) with a bool condition; x, y and
the output of any one dtype (quantized ones included: values move unchanged)."""
from __future__ import annotations

import numpy as np

from .common import register
from ....core.ops.movement import MoveKernel


@register("SelectV2")
class SelectV2Layer(MoveKernel):
    """out = where(condition, x, y), all three broadcast."""

    data = 1

    def validate(self) -> None:
        if self.inputs[0].dtype != np.bool_:
            raise self.fail(f"the condition must be bool, not {self.inputs[0].dtype}")
        if self.inputs[1].dtype != self.inputs[2].dtype:
            raise self.fail(f"x and y differ in dtype: {self.inputs[1].dtype}, "
                            f"{self.inputs[2].dtype}")
        self.check_same_dtype(1)

    def cond(self) -> np.ndarray:
        return self.buf(0)

    def prepare(self) -> None:
        self.c, self.x, self.y = self.cond(), self.buf(1), self.buf(2)
        try:
            np.broadcast_shapes(self.c.shape, self.x.shape, self.y.shape, self.out.shape)
        except ValueError:
            raise self.fail(f"condition {self.c.shape}, x {self.x.shape} and y {self.y.shape} "
                            f"do not broadcast to {self.out.shape}") from None

    def run(self) -> None:
        out = self.outputs[0].buffer
        np.copyto(out, self.y)
        np.copyto(out, self.x, where=self.c)


@register("Select")
class SelectLayer(SelectV2Layer):
    """out = where(condition, x, y); a rank-1 condition picks whole rows of x or y."""

    def cond(self) -> np.ndarray:
        c, x = self.buf(0), self.buf(1)
        if c.ndim == 1 and x.ndim > 1:
            return c.reshape(c.shape + (1,) * (x.ndim - 1))
        return c
