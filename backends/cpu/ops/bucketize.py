"""BUCKETIZE. Parameters and validation: core/ops/bucketize.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.bucketize import BucketizeBase
from .common import register


@register("Bucketize")
class BucketizeLayer(BucketizeBase):
    """The index of the bucket of each value: how many boundaries are <= it (int32)."""

    def run(self) -> None:
        x = self.buf(0).astype(self.cmp, copy=False)
        self.out[...] = np.searchsorted(self.bounds, x, side="right")
