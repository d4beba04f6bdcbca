"""Comparison (-> bool), LOGICAL_AND/OR: broadcasting binary kernels with a bool output."""
from __future__ import annotations

import numpy as np

from .common import BOOL, ClKernel, bcast_meta, register

I64 = np.dtype(np.int64)

COMPARE = {"EQUAL": 0, "NOT_EQUAL": 1, "GREATER": 2, "GREATER_EQUAL": 3, "LESS": 4,
           "LESS_EQUAL": 5}


class BroadcastLayer(ClKernel):
    """y = a (op) b with broadcasting over rank <= 6: `kernel_name` of extra.cl, `code()`."""

    kernel_name: str

    def code(self) -> int:
        raise NotImplementedError

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if len(y.shape) > 6:
            raise self.fail("broadcasting over rank > 6")
        self.meta = self.const_buffer(bcast_meta(a.shape, b.shape, y.shape))
        self.launch(self.kernel("extra.cl", self.kernel_name), (y.size,), None, a.buffer,
                    b.buffer, y.buffer, self.meta, np.int32(self.code()), np.int32(y.size))


@register(*(f"Comparison.{k}" for k in COMPARE))
class ComparisonLayer(BroadcastLayer):
    out_types = BOOL
    kernel_name = "compare_bcast"

    def code(self) -> int:
        return COMPARE[self.op.subtype]


@register("ElementwiseBinary.LOGICAL_AND", "ElementwiseBinary.LOGICAL_OR")
class LogicalLayer(BroadcastLayer):
    in_types = out_types = BOOL
    kernel_name = "logical_bcast"

    def code(self) -> int:
        return self.op.subtype == "LOGICAL_OR"
