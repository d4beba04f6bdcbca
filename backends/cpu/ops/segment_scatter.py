"""Scatter and segment ops: SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_SUM/MAX/MIN/PROD,
SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, EMBEDDING_LOOKUP (float tables).

Index inputs are data: they are read in every run() and checked there (an index out of range
fails the run)."""
from __future__ import annotations

import numpy as np

from .common import F32, NUMERIC, register
from .slice_split import MoveKernel, copy_checked

_INDEX = (np.int32, np.int64)


class DataKernel(MoveKernel):
    """A kernel whose data input `data` decides support: its dtype must be in `dtypes`
    (None: any), quantized ones only when `quantized`."""

    dtypes = NUMERIC
    quantized = False


@register("ScatterND")
class ScatterNDLayer(DataKernel):
    """inputs (indices [..., K], updates, shape): zeros of `shape` with the updates added at
    the indexed slices (repeated indices add up)."""

    data = 1
    dtypes = NUMERIC | {np.dtype(t) for t in (np.int8, np.uint8, np.bool_)}

    def validate(self) -> None:
        self.check_index_dtype(0, 2, allowed=_INDEX)
        self.check_same_dtype(1)

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


@register("SegmentSum")
class SegmentSumLayer(DataKernel):
    """inputs (data, sorted segment_ids [data.shape[0]]): out[i] = sum of rows with id i."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int32,))
        self.check_same_dtype(0)

    def run(self) -> None:
        data, ids, out = self.buf(0), self.buf(1).reshape(-1), self.out
        if data.ndim < 1 or ids.size != data.shape[0]:
            raise ValueError(f"{ids.size} segment ids for data {data.shape}")
        if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise ValueError("segment ids must be non-negative and sorted")
        if ids.size and ids[-1] >= out.shape[0]:
            raise ValueError(f"segment id {ids[-1]} out of range for output {out.shape}")
        out.fill(0)
        np.add.at(out, ids, data)


_INIT = {"UnsortedSegmentSum": (np.add, lambda d: 0),
         "UnsortedSegmentProd": (np.multiply, lambda d: 1),
         "UnsortedSegmentMax": (np.maximum,
                                lambda d: np.finfo(d).min if d.kind == "f" else np.iinfo(d).min),
         "UnsortedSegmentMin": (np.minimum,
                                lambda d: np.finfo(d).max if d.kind == "f" else np.iinfo(d).max)}


@register(*_INIT)
class UnsortedSegmentLayer(DataKernel):
    """inputs (data, segment_ids [prefix of data's shape], num_segments): out[i] reduces the
    slices whose id is i; empty segments hold the reduction's identity (lowest/highest
    value for max/min); negative ids are dropped."""

    def validate(self) -> None:
        self.check_index_dtype(1, 2, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.ufunc, init = _INIT[self.op.type]
        self.init = init(self.inputs[0].dtype)

    def run(self) -> None:
        data, ids, out = self.buf(0), self.buf(1), self.out
        if data.shape[:ids.ndim] != ids.shape or out.shape[1:] != data.shape[ids.ndim:]:
            raise ValueError(f"segment ids {ids.shape} do not fit data {data.shape} / "
                             f"output {out.shape}")
        ids = ids.reshape(-1)
        if ids.size and ids.max() >= out.shape[0]:
            raise ValueError(f"segment id {ids.max()} out of range [0, {out.shape[0]})")
        rows = data.reshape((ids.size,) + out.shape[1:])
        keep = ids >= 0
        out.fill(self.init)
        self.ufunc.at(out, ids[keep], rows[keep])


@register("SparseToDense")
class SparseToDenseLayer(DataKernel):
    """inputs (indices [N, rank] / [N] / scalar, output_shape, values [N] or scalar,
    default_value): default everywhere, values at the indices."""

    data = 2
    dtypes = NUMERIC | {np.dtype(t) for t in (np.int8, np.uint8, np.bool_)}

    def validate(self) -> None:
        self.check_index_dtype(0, 1, allowed=_INDEX)
        self.check_same_dtype(2)
        if self.inputs[3].dtype != self.inputs[2].dtype:
            raise self.fail("values and default_value differ in dtype")

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
class DynamicUpdateSliceLayer(MoveKernel):
    """inputs (operand, update, start_indices): operand with update written at the start
    indices, each clamped so that the update fits."""

    def validate(self) -> None:
        self.check_index_dtype(2, allowed=_INDEX)
        self.check_same_dtype(0)
        if self.inputs[1].dtype != self.inputs[0].dtype:
            raise self.fail("operand and update differ in dtype")

    def run(self) -> None:
        x, upd, out = self.buf(0), self.buf(1), self.out
        start = [int(s) for s in self.buf(2).reshape(-1)]
        if upd.ndim != x.ndim or len(start) != x.ndim or any(
                u > d for u, d in zip(upd.shape, x.shape)):
            raise ValueError(f"update {upd.shape} / start {start} do not fit operand {x.shape}")
        copy_checked(out, x)
        begin = [min(max(s, 0), d - u) for s, d, u in zip(start, x.shape, upd.shape)]
        out[tuple(slice(b, b + u) for b, u in zip(begin, upd.shape))] = upd


@register("EmbeddingLookup")
class EmbeddingLookupLayer(DataKernel):
    """inputs (ids int32 [n], table [rows, ...]): out[i] = table[ids[i]] (float tables; the
    hybrid int8 form is another kernel's)."""

    data = 1
    dtypes = F32

    def validate(self) -> None:
        self.check_index_dtype(0, allowed=(np.int32,))
        self.check_same_dtype(1)

    def run(self) -> None:
        ids, table = self.buf(0).reshape(-1), self.buf(1)
        if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
            raise ValueError(f"embedding id out of range [0, {table.shape[0]})")
        copy_checked(self.out, table[ids])
