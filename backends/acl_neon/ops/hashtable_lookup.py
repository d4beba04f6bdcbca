"""HASHTABLE_LOOKUP on acl_neon (module _lookup): one native call per run, binary search and
row copies with the GIL released, lookups split over threads. core/ops/hashtable_lookup.py
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

    def run(self) -> None:
        look, keys, values = (t.buffer for t in self.inputs)
        self.lib.hashtable_lookup(look, keys, values, self.outputs[0].buffer,
                                  self.outputs[1].buffer, self.threads)
