"""Comparison (-> bool), LOGICAL_AND/OR, ArgMinMax, TopKV2. (Gather, EmbeddingLookup:
gather.py; OneHot: one_hot.py.)"""
from __future__ import annotations

import numpy as np

from .common import BOOL, F32, INDEX, ClKernel, bcast_meta, register

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


@register("ArgMinMax")
class ArgMinMaxLayer(ClKernel):
    params_at = (1,)
    out_types = frozenset({np.dtype(np.int32), I64})

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        axis = self.param_values(1)[0]
        if not -len(x.shape) <= axis < len(x.shape) or x.shape[axis] == 0:
            raise self.fail(f"axis {axis} out of range (or empty) for input {x.shape}")
        axis %= len(x.shape)
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        opts = "-DIDX=long" if y.dtype == I64 else ""
        self.launch(self.kernel("extra.cl", "argminmax", opts), (y.size,), None, x.buffer,
                    y.buffer, np.int32(x.shape[axis]), np.int32(inner),
                    np.int32(self.op.subtype == "ARG_MIN"), np.int32(y.size))


@register("TopKV2")
class TopKV2Layer(ClKernel):
    """The k largest along the last axis, descending, equal values by lower index (int32
    indices)."""
    params_at = (1,)
    out_types = frozenset({F32}) | INDEX

    def validate(self) -> None:
        if self.outputs[0].dtype != F32 or self.outputs[1].dtype != np.int32:
            raise self.fail("acl_cl TopKV2 gives float32 values and int32 indices")

    def setup(self) -> None:
        x, vals, idx = self.inputs[0], self.outputs[0], self.outputs[1]
        k = self.param_values(1)[0]
        cols = x.shape[-1] if x.shape else 1
        if k != vals.shape[-1] or not 0 <= k <= cols:
            raise self.fail(f"k {k} does not fit input {x.shape} / output {vals.shape}")
        rows = x.size // max(cols, 1)
        if vals.size:
            self.launch(self.kernel("extra.cl", "top_k"), (rows,), None, x.buffer,
                        vals.buffer, idx.buffer, np.int32(cols), np.int32(k), np.int32(rows))
