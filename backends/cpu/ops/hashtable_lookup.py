"""HASHTABLE_LOOKUP: inputs lookup int32[N], keys int32[K], values [K, ...] (any dtype, moved
unchanged); outputs values [N, ...] (the row of each found key, zeros for a miss) and hits
uint8[N] (1 found, 0 missed). Checks: core/ops/hashtable_lookup.py.

The search is TFLite's: a bisection over the keys (which the model keeps sorted ascending) with
the comparator `lookup - key` computed as a wrapping int32 difference, so unsorted keys and
extreme values are answered exactly as the interpreter answers them.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.hashtable_lookup import I32, U8, HashtableLookupBase
from .common import register


def lookup_indices(lookup: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The index of each lookup value among `keys` as TFLite's bsearch finds it, else -1."""
    look = np.ascontiguousarray(lookup, I32).reshape(-1).view(np.uint32)
    kv = np.ascontiguousarray(keys, I32).reshape(-1).view(np.uint32)
    n = kv.size
    lo = np.zeros(look.size, np.int64)
    hi = np.full(look.size, n, np.int64)
    found = np.full(look.size, -1, np.int64)
    active = lo < hi
    while active.any():
        mid = (lo + hi) // 2
        probe = kv[np.where(active, mid, 0)]
        cmp = (look - probe).view(np.int32)         # wraps like the C int difference
        hit = active & (cmp == 0)
        found[hit] = mid[hit]
        lower, upper = active & (cmp < 0), active & (cmp > 0)
        hi = np.where(lower, mid, hi)
        lo = np.where(upper, mid + 1, lo)
        active = (lower | upper) & (lo < hi)
    return found


@register("HashtableLookup")
class HashtableLookupLayer(HashtableLookupBase):
    def run(self) -> None:
        look, keys, values = (t.buffer for t in self.inputs)
        out, hits = self.outputs[0].buffer, self.outputs[1].buffer
        idx = lookup_indices(look, keys)
        hit = idx >= 0
        out[hit] = values[idx[hit]]
        out[~hit] = 0
        hits[...] = hit.astype(U8)
