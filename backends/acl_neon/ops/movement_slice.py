"""Slicing and splitting on acl_neon: SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, PACK, UNPACK, each
one native CopyPlan built from the cpu kernel's views (see movement.py)."""
from __future__ import annotations

from ...cpu.ops.concat import PackLayer
from ...cpu.ops.slice import SliceLayer, StridedSliceLayer
from ...cpu.ops.split import SplitLayer, SplitVLayer, UnpackLayer
from .base import register
from .movement import NeonMove


@register("Slice")
class NeonSlice(NeonMove, SliceLayer):
    const_inputs = (1, 2)

    def build(self) -> None:
        src = self.view()
        self.plan([self.inputs[0]], [self.outputs[0]], [(0, 0, src, self.out)])


@register("StridedSlice")
class NeonStridedSlice(NeonMove, StridedSliceLayer):
    const_inputs = (1, 2, 3)

    def prepare(self) -> None:
        StridedSliceLayer.prepare(self)         # self.src: the view, checked (compile error)
        super().prepare()

    def build(self) -> None:
        self.plan([self.inputs[0]], [self.outputs[0]], [(0, 0, self.src, self.out)])


class NeonSplitBase(NeonMove):
    """SPLIT / SPLIT_V: the cpu kernel's parts (views of the input) copied to the outputs."""

    def build(self) -> None:
        self.cpu_prepare()          # self.parts
        x = self.inputs[self.data]
        steps = [(0, k, part, o.buffer) for k, (o, part) in enumerate(zip(self.outputs,
                                                                         self.parts))]
        self.plan([x], list(self.outputs), steps)


@register("Split")
class NeonSplit(NeonSplitBase, SplitLayer):
    const_inputs = (0,)


@register("SplitV")
class NeonSplitV(NeonSplitBase, SplitVLayer):
    const_inputs = (1, 2)


@register("Pack")
class NeonPack(NeonMove, PackLayer):
    requant_refusal = "acl_neon packs quantized tensors only with the output's parameters"

    def build(self) -> None:
        out = self.out
        axis = self.axis % out.ndim
        lead = (slice(None),) * axis
        steps = [(k, 0, t.buffer, out[lead + (k,)]) for k, t in enumerate(self.inputs)]
        self.plan(list(self.inputs), [self.outputs[0]], steps)


@register("Unpack")
class NeonUnpack(NeonMove, UnpackLayer):
    def build(self) -> None:
        self.cpu_prepare()           # self.pairs: (output buffer, input view)
        steps = [(0, k, src, dst) for k, (dst, src) in enumerate(self.pairs)]
        self.plan([self.inputs[0]], list(self.outputs), steps)
