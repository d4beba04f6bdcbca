"""SLICE and STRIDED_SLICE: a copy of the input's view (built, and checked, by
core/ops/slice.py: at configure for constant parameters, else in every run)."""
from __future__ import annotations

import numpy as np

from ....core.ops.slice import SliceBase, StridedSliceBase
from .common import register


@register("Slice")
class SliceLayer(SliceBase):
    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.src if self.src is not None else self.view())


@register("StridedSlice")
class StridedSliceLayer(StridedSliceBase):
    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.src if self.src is not None else self.view())
