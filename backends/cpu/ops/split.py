"""SPLIT, SPLIT_V and UNPACK: copies of the input's views (built by core/ops/split.py: at
configure for constant parameters, else in every run)."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked
from ....core.ops.split import SplitBase, SplitVBase, UnpackBase
from .common import register


@register("Split")
class SplitLayer(SplitBase):
    def run(self) -> None:
        parts = self.parts if self.parts is not None else self.views(self.scalar(0))
        for o, part in zip(self.outputs, parts):
            copy_checked(o.buffer, part)


@register("SplitV")
class SplitVLayer(SplitVBase):
    def run(self) -> None:
        parts = self.parts if self.parts is not None else self.views()
        for o, part in zip(self.outputs, parts):
            copy_checked(o.buffer, part)


@register("Unpack")
class UnpackLayer(UnpackBase):
    def run(self) -> None:
        for dst, src in self.pairs:
            np.copyto(dst, src)
