"""GATHER and EMBEDDING_LOOKUP (float tables) on acl_neon: the native gather kernel (module
_movement; indices are checked in native code before anything is read, an out-of-range index
fails the run). Parameters, checks and GATHER's geometry: core/ops/gather.py."""
from __future__ import annotations

from ....core.ops.gather import EmbeddingLookupBase, GatherBase
from .base import NeonMixin, register, size


@register("Gather")
class GatherLayer(NeonMixin, GatherBase):
    native_group = "movement"
    float_only = False

    def prepare(self) -> None:
        super().prepare()       # batch, outer, limit, inner, n_idx
        self.row_bytes = self.inner * self.buf(0).itemsize

    def run(self) -> None:
        self.lib.gather(self.inputs[0].buffer, self.inputs[1].buffer, self.outputs[0].buffer,
                        self.batch, self.outer, self.limit, self.n_idx, self.row_bytes,
                        self.threads)


@register("EmbeddingLookup")
class EmbeddingLookupLayer(NeonMixin, EmbeddingLookupBase):
    native_group = "movement"

    def prepare(self) -> None:
        ids, table = self.buf(0), self.buf(1)
        self.error = None       # shapes that do not fit fail the run, as on cpu
        if self.out.shape != (ids.size,) + table.shape[1:]:
            self.error = f"output {self.out.shape} does not hold {ids.size} rows of " \
                f"{table.shape[1:]}"
        self.n = ids.size
        self.rows = table.shape[0]
        self.row_bytes = size(table.shape[1:]) * table.itemsize

    def run(self) -> None:
        if self.error:
            raise ValueError(self.error)
        self.lib.gather(self.inputs[1].buffer, self.inputs[0].buffer, self.outputs[0].buffer,
                        1, 1, self.rows, self.n, self.row_bytes, self.threads)
