"""Hybrid EMBEDDING_LOOKUP: rows of an int8 table with a per-tensor or per-row scale, gathered
and dequantized to float32 (TFLite's embedding_lookup.cc EvalHybrid).

Float form: gather.py (EmbeddingLookupLayer).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import int8_table
from .common import OpKernel, register
from .hybrid_base import F32, I8


@register("EmbeddingLookup", when=int8_table)
class HybridEmbeddingLookupLayer(OpKernel):
    """out[i] = value[ids[i]] * scale (per tensor, or per row of the table)."""

    dtypes = None

    def validate(self) -> None:
        ids, value = self.inputs[0], self.inputs[1]
        if value.dtype != I8 or value.quant is None:
            raise self.fail("hybrid EmbeddingLookup needs an int8 table with a scale")
        if self.outputs[0].dtype != F32:
            raise self.fail("hybrid EmbeddingLookup writes float32")
        s = np.asarray(value.quant.scale, np.float32).reshape(-1)
        rows = value.shape[0]
        if s.size not in (1, rows) or (s.size > 1 and value.quant.axis != 0):
            raise self.fail(f"table scales ({s.size}) must be per tensor or per row")
        self.scale = s
        self.zp = np.asarray(value.quant.zero_point, np.float32).reshape(-1)
        self.rows = rows
        if len(ids.shape) != 1:
            raise self.fail(f"ids must be 1-D, got {ids.shape}")

    def run(self) -> None:
        ids = self.buf(0).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.rows):
            raise IndexError(f"EmbeddingLookup: ids out of range [0, {self.rows})")
        table = self.buf(1)[ids].astype(np.float32)
        scale = self.scale if self.scale.size == 1 else self.scale[ids]
        zp = self.zp if self.zp.size == 1 else self.zp[ids]
        shape = (-1,) + (1,) * (table.ndim - 1)
        out = (table - zp.reshape(shape)) * scale.reshape(shape)
        np.copyto(self.out, out.reshape(self.out.shape))
