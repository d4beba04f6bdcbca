"""TopKV2 (indexing.cl top_k): the k largest float32 values along the last axis, descending, equal
values by lower index, with int32 indices (core/ops/topk_v2.py)."""
from __future__ import annotations

import numpy as np

from .common import F32, INDEX, ClKernel, register


@register("TopKV2")
class TopKV2Layer(ClKernel):
    """The k largest along the last axis, descending, equal values by lower index (int32
    indices)."""
    params_at = (1,)
    out_types = frozenset({F32}) | INDEX

    def validate(self) -> None:
        if self.outputs[0].dtype != F32 or self.outputs[1].dtype != np.int32:
            raise self.fail("acl_cl TopKV2 gives float32 values and int32 indices")

    def setup(self) -> None:
        x, vals, idx = self.inputs[0], self.outputs[0], self.outputs[1]
        k = self.param_values(1)[0]
        cols = x.shape[-1] if x.shape else 1
        if k != vals.shape[-1] or not 0 <= k <= cols:
            raise self.fail(f"k {k} does not fit input {x.shape} / output {vals.shape}")
        rows = x.size // max(cols, 1)
        if vals.size:
            self.launch(self.kernel("indexing.cl", "top_k"), (rows,), None, x.buffer,
                        vals.buffer, idx.buffer, np.int32(cols), np.int32(k), np.int32(rows))
