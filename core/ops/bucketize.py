"""BUCKETIZE (TFLite's bucketize.cc): the index of each value's bucket, how many of the sorted
`boundaries` are <= it (int32 output). The parameters and validation every backend shares.
Kernel: backends/cpu/ops/bucketize.py."""
from __future__ import annotations

import numpy as np

from .base import OpKernel


class BucketizeBase(OpKernel):
    """BUCKETIZE of float32, float64, int32 or int64 values; `bounds`: the sorted boundaries in
    `cmp`, the dtype values are compared in (the boundaries' float32, float64 for doubles)."""

    dtypes = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))

    def validate(self) -> None:
        if self.outputs[0].dtype != np.int32:
            raise self.fail(f"BUCKETIZE gives int32, not {self.outputs[0].dtype}")
        b = np.asarray(self.op.params.get("boundaries") or [], np.float32).reshape(-1)
        if b.size and np.any(np.diff(b) < 0):
            raise self.fail(f"boundaries {b.tolist()} are not sorted")
        # values are compared as the boundaries' float (doubles stay doubles)
        self.cmp = np.float64 if self.inputs[0].dtype == np.float64 else np.float32
        self.bounds = b.astype(self.cmp)


__all__ = ["BucketizeBase"]
