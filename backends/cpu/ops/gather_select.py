"""GATHER, GATHER_ND. Indices are read in every run (they are data); out-of-range indices fail
the run, as they fail TFLite's invoke. SELECT, SELECT_V2: select.py."""
from __future__ import annotations

import numpy as np

from .common import register
from .slice_split import MoveKernel


@register("Gather")
class GatherLayer(MoveKernel):
    """params gathered along `axis` by indices; the first `batch_dims` dims are shared."""

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
        batch = int(np.prod(shape[:b], dtype=np.int64))
        outer = int(np.prod(shape[b:axis], dtype=np.int64))
        inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
        self.limit = shape[axis]
        self.batch = batch
        self.src = params.reshape(batch, outer, self.limit, inner)
        self.n_idx = int(np.prod(indices.shape[b:], dtype=np.int64))
        self.dst = self.out.reshape(batch, outer, self.n_idx, inner)
        if batch > 1:
            self.bi = np.arange(batch)[:, None, None]
            self.oi = np.arange(outer)[None, :, None]

    def run(self) -> None:
        idx = self.inputs[1].buffer
        if idx.size and (idx.min() < 0 or idx.max() >= self.limit):
            raise ValueError(f"gather index out of range [0, {self.limit}): "
                             f"{idx.min()}..{idx.max()}")
        idx = idx.reshape(self.batch, self.n_idx)
        if self.batch == 1:
            np.take(self.src[0], idx[0], axis=1, out=self.dst[0], mode="clip")
        elif self.batch:
            self.dst[...] = self.src[self.bi, self.oi, idx[:, None, :]]


@register("GatherND")
class GatherNDLayer(MoveKernel):
    """params[indices[..., 0], ..., indices[..., k-1]] for k = indices.shape[-1]."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int16, np.int32, np.int64))
        self.check_same_dtype(0)
        if self.static(0) and self.static(1):
            k = self.inputs[1].shape[-1] if self.inputs[1].shape else -1
            if not 0 <= k <= len(self.inputs[0].shape):
                raise self.fail(f"index depth {k} does not fit params of rank "
                                f"{len(self.inputs[0].shape)}")

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
