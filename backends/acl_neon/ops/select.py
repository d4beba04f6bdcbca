"""SELECT and SELECT_V2 on acl_neon (native group `eltwise`, csrc/eltwise/int_eltwise.cpp):
out = condition ? x : y over the collapsed broadcast shape of the three inputs, elements moved
by size (1, 2, 4 or 8 bytes), so every dtype of those sizes runs, quantized ones included (the
values move unchanged, as in the interpreter). The checks and SELECT's row-picking rank-1
condition: core/ops/select.py."""
from __future__ import annotations

from ....core.ops.select import SelectBase, SelectV2Base
from .base import NeonMixin, register
from .eltwise import MAX_RANK, broadcast_strides

ELEMENT_BYTES = (1, 2, 4, 8)


@register("SelectV2")
class SelectV2Layer(NeonMixin, SelectV2Base):
    """out = where(condition, x, y), all three broadcast."""

    native_group = "eltwise"
    float_only = False

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        x = graph.operands[op.inputs[1]]
        if x.dtype.itemsize not in ELEMENT_BYTES:
            return False, (f"acl_neon {op.type} moves elements of 1, 2, 4 or 8 bytes, not "
                           f"{x.dtype}")
        return True, ""

    def prepare(self) -> None:
        c, x, y, out = self.inputs[0], self.inputs[1], self.inputs[2], self.outputs[0]
        shape, (sc, sx, sy) = broadcast_strides(out.shape, self.check_shapes(), x.shape,
                                                y.shape)
        if len(shape) > MAX_RANK:
            raise self.fail(f"acl_neon broadcasts at most {MAX_RANK} distinct dimensions")
        self.plan = self.lib.SelectPlan(out.dtype.itemsize, shape, sc, sx, sy)

    def plan_operands(self) -> list:
        return [*self.inputs[:3], self.outputs[0]]


@register("Select")
class SelectLayer(SelectV2Layer, SelectBase):
    """out = where(condition, x, y); a rank-1 condition picks whole rows of x or y."""
