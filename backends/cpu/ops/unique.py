"""UNIQUE: distinct values in order of first appearance; run() sizes the outputs
(core/ops/unique.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.unique import UniqueBase
from .common import register


@register("Unique")
class UniqueLayer(UniqueBase):
    """y: the distinct values of a 1-D x in order of first appearance; idx: each element's
    position in y."""

    def run(self) -> None:
        x = self.inputs[0].buffer
        if x.ndim != 1:
            raise ValueError(f"UNIQUE needs a 1-D input, got shape {x.shape}")
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")      # sorted position -> appearance rank
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y, idx = self.outputs
        y.resize((values.size,))
        y.buffer[...] = values[order]
        idx.resize(x.shape)
        idx.buffer[...] = rank[inverse.reshape(-1)]
