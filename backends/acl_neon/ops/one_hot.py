"""ONE_HOT on acl_neon: the native one-hot kernel (module _movement); checks:
core/ops/one_hot.py."""
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
        self.outer = size(idx.shape[:axis])
        self.inner = size(idx.shape[axis:])
        self.depth = out.shape[axis]
        self.error = None       # shapes that do not fit fail the run, as on cpu
        if out.size != self.outer * self.depth * self.inner:
            self.error = f"output {out.shape} does not fit indices {idx.shape}"

    def run(self) -> None:
        if self.error:
            raise ValueError(self.error)
        self.lib.one_hot(self.inputs[0].buffer, self.inputs[2].buffer, self.inputs[3].buffer,
                         self.outputs[0].buffer, self.outer, self.depth, self.inner,
                         self.threads)
