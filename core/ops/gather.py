"""GATHER, GATHER_ND and EMBEDDING_LOOKUP of float tables (TFLite's gather.cc, gather_nd.cc,
embedding_lookup.cc). Indices are data: they are read in every run, and out-of-range indices
fail the run, as they fail TFLite's invoke. EMBEDDING_LOOKUP's hybrid form (an int8 table with
scales) is another kernel's.

GATHER of Circle's GGML block params (`GgmlGatherBase`): whole rows of blocks are gathered and
dequantized to float32 (core/quant/ggml_blocks.py), as onert's cpu backend does with ggml's
get_rows."""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Operation
from .base import F32
from .movement import DataKernel, MoveKernel


class GatherBase(MoveKernel):
    """params gathered along `axis` by indices; the first `batch_dims` dims are shared.
    prepare() gives the geometry: params seen as [batch, outer, limit, inner] (`src`), the
    output as [batch, outer, n_idx, inner] (`dst`)."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int16, np.int32, np.int64))
        self.check_same_dtype(0)
        self.check_axes()

    def check_axes(self) -> None:
        """`axis` and `batch_dims` in range for the params' and indices' ranks."""
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
        params = self.buf(0)
        self.geometry(params.shape)
        self.src = params.reshape(self.batch, self.outer, self.limit, self.inner)
        self.dst = self.out.reshape(self.batch, self.outer, self.n_idx, self.inner)

    def geometry(self, shape: tuple[int, ...]) -> None:
        """`batch`, `outer`, `limit`, `inner` of params of `shape`, and `n_idx`."""
        indices = self.buf(1)
        axis = self.axis % len(shape)
        b = self.batch_dims + indices.ndim if self.batch_dims < 0 else self.batch_dims
        self.batch = int(np.prod(shape[:b], dtype=np.int64))
        self.outer = int(np.prod(shape[b:axis], dtype=np.int64))
        self.inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
        self.limit = shape[axis]
        self.n_idx = int(np.prod(indices.shape[b:], dtype=np.int64))

    def indices(self) -> np.ndarray:
        """This run's indices as [batch, n_idx]; ValueError (the run fails, as TFLite's invoke
        does) when one is outside [0, limit)."""
        idx = self.inputs[1].buffer
        if idx.size and (idx.min() < 0 or idx.max() >= self.limit):
            raise ValueError(f"gather index out of range [0, {self.limit}): "
                             f"{idx.min()}..{idx.max()}")
        return idx.reshape(self.batch, self.n_idx)


class GgmlGatherBase(GatherBase):
    """GATHER of GGML block params (Circle): rows of whole blocks, gathered along any axis but
    the last (the one the blocks run along), dequantized into the float32 output; int32 or
    int64 indices. onert takes rank-2 params, axis 0 and int32 indices. validate() leaves `fmt`
    (ggml_blocks.BlockFormat); prepare() GatherBase's geometry of the logical shape (`inner`
    in values), `src` the params' bytes as [batch, outer, limit, inner_bytes] and `dst` the
    output as [batch, outer, n_idx, inner]."""

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        p, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if y.dtype != np.float32:
            return False, f"GGML Gather writes float32, not {y.type_name}"
        axis, rank = int(op.params.get("axis", 0)), len(p.shape)
        if -rank <= axis < rank and axis % rank == rank - 1:
            return False, (f"GGML Gather cannot gather along the last axis of {p.type_name} "
                           f"params (the blocks run along it)")
        return True, ""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int32, np.int64))
        self.check_axes()
        from ..quant import ggml_blocks     # GGML models only: not on every cold start
        self.fmt = ggml_blocks.block_format(self.inputs[0].type_name)

    def prepare(self) -> None:
        self.geometry(self.inputs[0].shape)
        from ..quant.ggml_blocks import QK
        self.inner_bytes = self.inner // QK * self.fmt.block_bytes
        self.src = self.buf(0).reshape(self.batch, self.outer, self.limit, self.inner_bytes)
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


__all__ = ["GatherBase", "GgmlGatherBase", "GatherNDBase", "EmbeddingLookupBase"]
