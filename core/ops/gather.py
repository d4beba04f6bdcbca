"""GATHER, GATHER_ND and EMBEDDING_LOOKUP of float tables (TFLite's gather.cc, gather_nd.cc,
embedding_lookup.cc). Indices are data: they are read in every run, and out-of-range indices
fail the run, as they fail TFLite's invoke. EMBEDDING_LOOKUP's hybrid form (an int8 table with
scales) is another kernel's."""
from __future__ import annotations

import numpy as np

from .base import F32
from .movement import DataKernel, MoveKernel


class GatherBase(MoveKernel):
    """params gathered along `axis` by indices; the first `batch_dims` dims are shared.
    prepare() gives the geometry: params seen as [batch, outer, limit, inner] (`src`), the
    output as [batch, outer, n_idx, inner] (`dst`)."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int16, np.int32, np.int64))
        self.check_same_dtype(0)
        self.axis = int(self.op.params.get("axis", 0))
        self.batch_dims = int(self.op.params.get("batch_dims", 0))
        if self.static(0) and self.static(1):
            p, i = len(self.inputs[0].shape), len(self.inputs[1].shape)
            if not -p <= self.axis < p:
                raise self.fail(f"axis {self.axis} out of range for rank {p}")
            b = self.batch_dims + i if self.batch_dims < 0 else self.batch_dims
            if not 0 <= b <= min(self.axis % p, i):
                raise self.fail(f"batch_dims {self.batch_dims} out of range (axis {self.axis}, "
                                f"indices rank {i})")

    def prepare(self) -> None:
        params, indices = self.buf(0), self.buf(1)
        axis = self.axis % params.ndim
        b = self.batch_dims + indices.ndim if self.batch_dims < 0 else self.batch_dims
        shape = params.shape
        self.batch = int(np.prod(shape[:b], dtype=np.int64))
        self.outer = int(np.prod(shape[b:axis], dtype=np.int64))
        self.inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
        self.limit = shape[axis]
        self.src = params.reshape(self.batch, self.outer, self.limit, self.inner)
        self.n_idx = int(np.prod(indices.shape[b:], dtype=np.int64))
        self.dst = self.out.reshape(self.batch, self.outer, self.n_idx, self.inner)


class GatherNDBase(MoveKernel):
    """params[indices[..., 0], ..., indices[..., k-1]] for k = indices.shape[-1]."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int16, np.int32, np.int64))
        self.check_same_dtype(0)
        if self.static(0) and self.static(1):
            k = self.inputs[1].shape[-1] if self.inputs[1].shape else -1
            if not 0 <= k <= len(self.inputs[0].shape):
                raise self.fail(f"index depth {k} does not fit params of rank "
                                f"{len(self.inputs[0].shape)}")


class EmbeddingLookupBase(DataKernel):
    """inputs (ids int32 [n], table [rows, ...]): out[i] = table[ids[i]] (float tables)."""

    data = 1
    dtypes = F32

    def validate(self) -> None:
        self.check_index_dtype(0, allowed=(np.int32,))
        self.check_same_dtype(1)


__all__ = ["GatherBase", "GatherNDBase", "EmbeddingLookupBase"]
