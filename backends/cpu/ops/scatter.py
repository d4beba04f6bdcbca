"""SCATTER_ND, SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE: values written into a tensor at indices
(checks: core/ops/scatter.py). Indices are read in every run and checked there (an index out
of range fails the run)."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked
from ....core.ops.scatter import DynamicUpdateSliceBase, ScatterNDBase, SparseToDenseBase
from .common import register


@register("ScatterND")
class ScatterNDLayer(ScatterNDBase):
    def run(self) -> None:
        idx, upd, out = self.buf(0), self.buf(1), self.out
        k = idx.shape[-1] if idx.ndim else 0
        if idx.ndim < 1 or k > out.ndim or upd.shape != idx.shape[:-1] + out.shape[k:]:
            raise ValueError(f"indices {idx.shape} and updates {upd.shape} do not fit "
                             f"shape {out.shape}")
        flat = idx.reshape(-1, k).astype(np.int64)
        if flat.size and (flat.min() < 0 or np.any(flat.max(axis=0) >= out.shape[:k])):
            raise ValueError(f"scatter index out of range for shape {out.shape}")
        out.fill(0)
        upd = upd.reshape((flat.shape[0],) + out.shape[k:])
        if out.dtype == np.bool_:
            np.logical_or.at(out, tuple(flat.T), upd)
        else:
            np.add.at(out, tuple(flat.T), upd)


@register("SparseToDense")
class SparseToDenseLayer(SparseToDenseBase):
    def run(self) -> None:
        idx, vals, out = self.buf(0), self.buf(2), self.out
        idx = idx.reshape(-1, 1) if idx.ndim < 2 else idx
        n, k = idx.shape
        if k != out.ndim or vals.size not in (1, n):
            raise ValueError(f"indices {idx.shape} and {vals.size} values do not fit output "
                             f"{out.shape}")
        if n and (idx.min() < 0 or np.any(idx.max(axis=0) >= out.shape)):
            raise ValueError(f"sparse index out of range for shape {out.shape}")
        np.copyto(out, self.buf(3).reshape(()))
        out[tuple(idx.astype(np.int64).T)] = vals.reshape(-1)


@register("DynamicUpdateSlice")
class DynamicUpdateSliceLayer(DynamicUpdateSliceBase):
    def run(self) -> None:
        x, upd, out = self.buf(0), self.buf(1), self.out
        start = [int(s) for s in self.buf(2).reshape(-1)]
        if upd.ndim != x.ndim or len(start) != x.ndim or any(
                u > d for u, d in zip(upd.shape, x.shape)):
            raise ValueError(f"update {upd.shape} / start {start} do not fit operand {x.shape}")
        copy_checked(out, x)
        begin = [min(max(s, 0), d - u) for s, d, u in zip(start, x.shape, upd.shape)]
        out[tuple(slice(b, b + u) for b, u in zip(begin, upd.shape))] = upd
