"""SEGMENT_SUM and UNSORTED_SEGMENT_SUM / PROD / MAX / MIN (checks and empty-segment values:
core/ops/segment.py). Segment ids are read in every run and checked there."""
from __future__ import annotations

import numpy as np

from ....core.ops.segment import SegmentSumBase, UnsortedSegmentBase
from .common import register

UFUNC = {"UnsortedSegmentSum": np.add, "UnsortedSegmentProd": np.multiply,
         "UnsortedSegmentMax": np.maximum, "UnsortedSegmentMin": np.minimum}


@register("SegmentSum")
class SegmentSumLayer(SegmentSumBase):
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


@register(*UFUNC)
class UnsortedSegmentLayer(UnsortedSegmentBase):
    def validate(self) -> None:
        super().validate()
        self.ufunc = UFUNC[self.op.type]

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
