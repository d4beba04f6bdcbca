"""Quantized forms of data-movement kernels where TFLite's Prepare is stricter than a plain
copy (the checks are core/ops/'s): PAD / PADV2 pad with the output's zero point or a
constant of the output's parameters (pad.cc; core/ops/pad.py), SPACE_TO_BATCH_ND needs the
output's zero point (and scale) to equal the input's (space_to_batch_nd.cc; the padding is that
zero point; core/ops/space_batch.py), and SPACE_TO_DEPTH / DEPTH_TO_SPACE take int8 and uint8
but not int16 (core/ops/space_depth.py). Values move unchanged: the float kernels' code
(backends/cpu/ops/pad.py, space_batch.py, space_depth.py)."""
from __future__ import annotations

from .....core.ops.pad import QPadBase
from .....core.ops.space_batch import QSpaceToBatchNDBase
from .....core.ops.space_depth import QDepthToSpaceBase, QSpaceToDepthBase
from ..pad import PadLayer
from ..space_batch import SpaceToBatchNDLayer
from ..space_depth import DepthToSpaceLayer, SpaceToDepthLayer
from .base import quantized, register


@register("Pad", "PadV2", when=quantized)
class QPadLayer(QPadBase, PadLayer):
    pass


@register("SpaceToBatchND", when=quantized)
class QSpaceToBatchNDLayer(QSpaceToBatchNDBase, SpaceToBatchNDLayer):
    pass


@register("SpaceToDepth", when=quantized)
class QSpaceToDepthLayer(QSpaceToDepthBase, SpaceToDepthLayer):
    pass


@register("DepthToSpace", when=quantized)
class QDepthToSpaceLayer(QDepthToSpaceBase, DepthToSpaceLayer):
    pass
