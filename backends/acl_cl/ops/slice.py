"""Slice and StridedSlice on acl_cl: index tables (movement.TableLayer) of the view the cpu
kernel copies (core/ops/slice.py's bounds; STRIDED_SLICE's plan: core/compiler)."""
from __future__ import annotations

from ....core.compiler.shape_rules_indexing import strided_slice_plan
from .common import register
from .movement import TableLayer


@register("Slice")
class SliceLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        begin = self.value(1)
        out = self.outputs[0].shape
        if len(begin) != src.ndim or any(b < 0 or b + s > d for b, s, d in
                                         zip(begin, out, src.shape)):
            raise ValueError(f"slice begin {begin} with size {out} is out of bounds for the "
                             f"input shape {src.shape}")
        return [src[tuple(slice(b, b + s) for b, s in zip(begin, out))]]


@register("StridedSlice")
class StridedSliceLayer(TableLayer):
    params_at = (1, 2, 3)

    def tables(self, src):
        plan = strided_slice_plan(src.shape, self.inputs[1].data, self.inputs[2].data,
                                  self.inputs[3].data, self.op.params)
        return [src.reshape(plan.effective)[plan.index]]
