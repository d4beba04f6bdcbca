"""HASHTABLE_LOOKUP on acl_neon (module _lookup): a native plan bound to the tensors' slots,
binary search and row copies, lookups split over threads. core/ops/hashtable_lookup.py
validates; any value dtype (quantized ones included: rows move unchanged). Empty key tables
stay on cpu."""
from __future__ import annotations

from ....core.ir import Graph, Operation
from ....core.ops.hashtable_lookup import HashtableLookupBase
from .base import NeonMixin, register


@register("HashtableLookup")
class HashtableLookupLayer(NeonMixin, HashtableLookupBase):
    native_group = "lookup"
    float_only = False

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        keys = graph.operands[op.inputs[1]] if len(op.inputs) > 1 else None
        if keys is not None and any(d <= 0 for d in keys.shape):
            return False, "acl_neon HashtableLookup needs a non-empty key table"
        return True, ""

    def prepare(self) -> None:
        super().prepare()
        look, keys, values = (t.buffer for t in self.inputs)
        row_bytes = values.nbytes // values.shape[0] if values.shape[0] else 0
        self.plan = self.lib.LookupPlan(look.shape[0], keys.shape[0], row_bytes)

    def plan_operands(self) -> list:
        """lookups, keys, values, then the outputs: values found, hits."""
        return [*self.inputs, *self.outputs]
