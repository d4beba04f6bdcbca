"""Float32 ArgMinMax (ARG_MAX / ARG_MIN along a constant axis) on acl_neon, native group
`eltwise`: the validation of core/ops/arg_min_max.py, one native call per run; other forms stay
on cpu."""
from __future__ import annotations

import numpy as np

from ....core.ops.arg_min_max import ArgMinMaxBase
from .base import NeonMixin, float_io, register, size

MAX_ARG_LEN = 1 << 24         # indices travel as exact float32 lanes


@register("ArgMinMax")
class ArgMinMaxLayer(NeonMixin, ArgMinMaxBase):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok:
            ok, why = float_io(op, graph, op.subtype, const_axis=True)
        if ok and graph.operands[op.outputs[0]].dtype not in (np.int32, np.int64):
            return False, f"acl_neon {op.subtype} gives int32 or int64 only"
        return ok, why

    def prepare(self) -> None:
        shape = tuple(self.inputs[0].shape)
        if self.axis is None or not -len(shape) <= self.axis < len(shape):
            raise self.fail(f"acl_neon {self.op.subtype} needs a constant axis in range")
        axis = self.axis % len(shape)
        outer, length, inner = size(shape[:axis]), int(shape[axis]), size(shape[axis + 1:])
        if not 1 <= length <= MAX_ARG_LEN:
            raise self.fail(f"acl_neon {self.op.subtype} takes axes of 1..{MAX_ARG_LEN}")
        if size(self.outputs[0].shape) != outer * inner:
            raise self.fail(f"output {self.outputs[0].shape} does not match {shape}")
        self.plan = self.lib.ArgPlan(outer, length, inner, self.op.subtype == "ARG_MAX",
                                     self.outputs[0].dtype == np.int64)
