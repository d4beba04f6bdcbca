"""ADD_N on cpu: the element-wise sum of N inputs of one shape and dtype (float32, int32, int64;
no quantized kernel)."""
from __future__ import annotations

import numpy as np

from .common import NUMERIC, OpKernel, register


@register("AddN")
class AddNLayer(OpKernel):
    """The element-wise sum of N inputs of one shape, added in input order."""

    dtypes = NUMERIC

    def validate(self) -> None:
        dt = self.inputs[0].dtype
        if any(t.dtype != dt for t in self.inputs):
            raise self.fail("ADD_N inputs differ in dtype")
        if self.outputs[0].dtype != dt:
            raise self.fail(f"output has dtype {self.outputs[0].dtype}, expected {dt}")

    def run(self) -> None:
        out = self.out
        for t in self.inputs:
            if t.buffer.shape != out.shape:
                raise ValueError(f"ADD_N input {t.buffer.shape} differs from output {out.shape}")
        np.copyto(out, self.inputs[0].buffer)
        for t in self.inputs[1:]:
            np.add(out, t.buffer, out=out)
