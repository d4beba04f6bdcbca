"""SEGMENT_SUM and UNSORTED_SEGMENT_SUM / PROD / MAX / MIN (TFLite's segment_sum.cc,
unsorted_segment.cc). Segment ids are data: they are read in every run and checked there."""
from __future__ import annotations

import numpy as np

from .movement import DataKernel

# the value of an empty segment: the reduction's identity (lowest/highest value for max/min)
IDENTITY = {"UnsortedSegmentSum": lambda d: 0,
            "UnsortedSegmentProd": lambda d: 1,
            "UnsortedSegmentMax": lambda d: np.finfo(d).min if d.kind == "f" else np.iinfo(d).min,
            "UnsortedSegmentMin": lambda d: np.finfo(d).max if d.kind == "f" else np.iinfo(d).max}


class SegmentSumBase(DataKernel):
    """inputs (data, sorted segment_ids [data.shape[0]]): out[i] = sum of rows with id i."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=(np.int32,))
        self.check_same_dtype(0)


class UnsortedSegmentBase(DataKernel):
    """inputs (data, segment_ids [prefix of data's shape], num_segments): out[i] reduces the
    slices whose id is i; empty segments hold the reduction's identity (`init`); negative ids
    are dropped."""

    def validate(self) -> None:
        self.check_index_dtype(1, 2, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.init = IDENTITY[self.op.type](self.inputs[0].dtype)


__all__ = ["SegmentSumBase", "UnsortedSegmentBase", "IDENTITY"]
