"""DEPTH_TO_SPACE and SPACE_TO_DEPTH on acl_neon: one native CopyPlan (see movement.py) of
core/ops/space_depth.py's views. Quantized: int8 and uint8 (core's quantized forms)."""
from __future__ import annotations

from ....core.ops.space_depth import (DepthToSpaceBase, QDepthToSpaceBase, QSpaceToDepthBase,
                                      SpaceToDepthBase)
from .base import register
from .movement import NeonMove


class NeonBlockMove(NeonMove):
    """DEPTH_TO_SPACE / SPACE_TO_DEPTH: the core base's views (self.src, self.dst)."""

    def build(self) -> None:
        self.core_prepare()
        self.copy_plan([self.inputs[0]], [self.outputs[0]], [(0, 0, self.src, self.dst)])


@register("DepthToSpace")
class DepthToSpaceLayer(NeonBlockMove, DepthToSpaceBase):
    quantized_form = QDepthToSpaceBase


@register("SpaceToDepth")
class SpaceToDepthLayer(NeonBlockMove, SpaceToDepthBase):
    quantized_form = QSpaceToDepthBase
