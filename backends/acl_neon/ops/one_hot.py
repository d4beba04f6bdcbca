"""ONE_HOT on acl_neon: the native one-hot plan (module _movement), bound to the tensors'
slots; checks: core/ops/one_hot.py."""
from __future__ import annotations

from ....core.ops.one_hot import OneHotBase
from .base import NeonMixin, register, size


@register("OneHot")
class OneHotLayer(NeonMixin, OneHotBase):
    native_group = "movement"
    float_only = False

    def prepare(self) -> None:
        idx, out = self.buf(0), self.out
        axis = int(self.op.params.get("axis", -1)) % out.ndim
        outer, inner, depth = size(idx.shape[:axis]), size(idx.shape[axis:]), out.shape[axis]
        self.plan, self.error = None, ""    # shapes that do not fit fail the run, as on cpu
        if out.size != outer * depth * inner:
            self.error = f"output {out.shape} does not fit indices {idx.shape}"
            return
        self.plan = self.lib.OneHotPlan(outer, depth, inner, out.itemsize, idx.itemsize)

    def plan_operands(self) -> list:
        """indices, on_value, off_value (input 1 is the depth, read at prepare), output."""
        return [self.inputs[0], self.inputs[2], self.inputs[3], self.outputs[0]]

    def bind(self):
        return super().bind() if self.plan is not None else self.lib.error_step(self.error)
