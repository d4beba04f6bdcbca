"""DEPTH_TO_SPACE and SPACE_TO_DEPTH: a copy of core/ops/space_depth.py's views. Quantized
forms (int8 and uint8 only): backends/cpu/ops/quant/qmove.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.space_depth import DepthToSpaceBase, SpaceToDepthBase
from .common import register


@register("DepthToSpace")
class DepthToSpaceLayer(DepthToSpaceBase):
    def run(self) -> None:
        np.copyto(self.dst, self.src)


@register("SpaceToDepth")
class SpaceToDepthLayer(SpaceToDepthBase):
    def run(self) -> None:
        np.copyto(self.dst, self.src)
