"""GATHER and EMBEDDING_LOOKUP (float tables) on acl_neon: the native gather plan (module
_movement), bound to the tensors' slots; indices are checked in native code before anything is
written, an out-of-range index fails the run. Parameters, checks and GATHER's geometry:
core/ops/gather.py."""
from __future__ import annotations

from ....core.ops.gather import EmbeddingLookupBase, GatherBase
from .base import NeonMixin, register, size


@register("Gather")
class GatherLayer(NeonMixin, GatherBase):
    native_group = "movement"
    float_only = False

    def prepare(self) -> None:
        super().prepare()       # batch, outer, limit, inner, n_idx
        self.plan = self.lib.GatherPlan(self.batch, self.outer, self.limit, self.n_idx,
                                        self.inner * self.buf(0).itemsize, self.buf(1).itemsize)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]


@register("EmbeddingLookup")
class EmbeddingLookupLayer(NeonMixin, EmbeddingLookupBase):
    """A gather of table rows (input 1) by ids (input 0)."""

    native_group = "movement"

    def prepare(self) -> None:
        ids, table = self.buf(0), self.buf(1)
        self.plan, self.error = None, ""    # shapes that do not fit fail the run, as on cpu
        if self.out.shape != (ids.size,) + table.shape[1:]:
            self.error = f"output {self.out.shape} does not hold {ids.size} rows of " \
                f"{table.shape[1:]}"
            return
        self.plan = self.lib.GatherPlan(1, 1, table.shape[0], ids.size,
                                        size(table.shape[1:]) * table.itemsize, ids.itemsize)

    def plan_operands(self) -> list:
        return [self.inputs[1], self.inputs[0], self.outputs[0]]

    def bind(self):
        return super().bind() if self.plan is not None else self.lib.error_step(self.error)
