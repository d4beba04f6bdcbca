"""SLICE and STRIDED_SLICE on acl_neon: one native CopyPlan (see movement.py) of
core/ops/slice.py's view; the parameters must be constant."""
from __future__ import annotations

from ....core.ops.slice import SliceBase, StridedSliceBase
from .base import register
from .movement import NeonMove


@register("Slice")
class SliceLayer(NeonMove, SliceBase):
    const_inputs = (1, 2)

    def build(self) -> None:
        src = self.view()
        self.copy_plan([self.inputs[0]], [self.outputs[0]], [(0, 0, src, self.out)])


@register("StridedSlice")
class StridedSliceLayer(NeonMove, StridedSliceBase):
    const_inputs = (1, 2, 3)

    def prepare(self) -> None:
        StridedSliceBase.prepare(self)          # self.src: the view, checked (compile error)
        super().prepare()

    def build(self) -> None:
        self.copy_plan([self.inputs[0]], [self.outputs[0]], [(0, 0, self.src, self.out)])
