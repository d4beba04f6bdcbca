"""SPLIT, SPLIT_V and UNPACK on acl_neon: one native CopyPlan (see movement.py) of
core/ops/split.py's views into the outputs; the parameters must be constant."""
from __future__ import annotations

from ....core.ops.split import SplitBase, SplitVBase, UnpackBase
from .base import register
from .movement import NeonMove


class NeonSplitBase(NeonMove):
    """SPLIT / SPLIT_V: the core base's parts (views of the input) copied to the outputs."""

    def build(self) -> None:
        self.core_prepare()         # self.parts
        x = self.inputs[self.data]
        steps = [(0, k, part, o.buffer) for k, (o, part) in enumerate(zip(self.outputs,
                                                                         self.parts))]
        self.copy_plan([x], list(self.outputs), steps)


@register("Split")
class SplitLayer(NeonSplitBase, SplitBase):
    const_inputs = (0,)


@register("SplitV")
class SplitVLayer(NeonSplitBase, SplitVBase):
    const_inputs = (1, 2)


@register("Unpack")
class UnpackLayer(NeonMove, UnpackBase):
    def build(self) -> None:
        self.core_prepare()          # self.pairs: (output buffer, input view)
        steps = [(0, k, src, dst) for k, (dst, src) in enumerate(self.pairs)]
        self.copy_plan([self.inputs[0]], list(self.outputs), steps)
