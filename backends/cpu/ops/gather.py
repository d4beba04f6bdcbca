"""GATHER, GATHER_ND and EMBEDDING_LOOKUP of float tables (parameters, checks and GATHER's
geometry: core/ops/gather.py). Indices are read in every run; out-of-range indices fail the
run, as they fail TFLite's invoke. Hybrid EMBEDDING_LOOKUP (int8 tables):
backends/cpu/ops/hybrid_embedding_lookup.py; GATHER of GGML blocks: ggml.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.gather import EmbeddingLookupBase, GatherBase, GatherNDBase
from ....core.ops.movement import copy_checked
from .common import register


@register("Gather")
class GatherLayer(GatherBase):
    def prepare(self) -> None:
        super().prepare()       # src, dst: params and output as [batch, outer, *, inner]
        if self.batch > 1:
            self.bi = np.arange(self.batch)[:, None, None]
            self.oi = np.arange(self.outer)[None, :, None]

    def run(self) -> None:
        idx = self.indices()       # [batch, n_idx], checked
        if self.batch == 1:
            np.take(self.src[0], idx[0], axis=1, out=self.dst[0], mode="clip")
        elif self.batch:
            self.dst[...] = self.src[self.bi, self.oi, idx[:, None, :]]


@register("GatherND")
class GatherNDLayer(GatherNDBase):
    def prepare(self) -> None:
        params, indices = self.buf(0), self.buf(1)
        self.k = indices.shape[-1]
        self.dims = params.shape[:self.k]
        lead = int(np.prod(self.dims, dtype=np.int64))
        inner = int(np.prod(params.shape[self.k:], dtype=np.int64))
        self.src = params.reshape(lead, inner)
        n = int(np.prod(indices.shape[:-1], dtype=np.int64))
        self.dst = self.out.reshape(n, self.src.shape[1])

    def run(self) -> None:
        idx = self.inputs[1].buffer.reshape(-1, self.k)
        if self.k == 0:
            self.dst[...] = self.src[0]
            return
        flat = np.ravel_multi_index(tuple(idx.T), self.dims)   # raises when out of range
        np.take(self.src, flat, axis=0, out=self.dst, mode="clip")


@register("EmbeddingLookup")
class EmbeddingLookupLayer(EmbeddingLookupBase):
    def run(self) -> None:
        ids, table = self.buf(0).reshape(-1), self.buf(1)
        if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
            raise ValueError(f"embedding id out of range [0, {table.shape[0]})")
        copy_checked(self.out, table[ids])
