"""DepthToSpace and SpaceToDepth on acl_cl: index tables (movement.TableLayer) of
core/ops/space_depth.py's geometry; 4-D NHWC inputs; quantized: int8 and uint8, as TFLite."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ....core.ops.space_depth import (QDepthToSpaceBase, QSpaceToDepthBase, depth_to_space,
                                      space_to_depth)
from .common import register
from .movement import SpatialLayer


class BlockMoveLayer(SpatialLayer):
    """The element numbers seen in the output's element order (`geometry`: core's view), in the
    output's shape."""

    geometry: Callable[[np.ndarray, int], np.ndarray]

    def tables(self, src):
        view = self.geometry(src, int(self.op.params.block_size))
        return [view.reshape(self.outputs[0].shape)]


@register("DepthToSpace")
class DepthToSpaceLayer(BlockMoveLayer):
    quantized_form = QDepthToSpaceBase     # int8 and uint8 only
    geometry = staticmethod(depth_to_space)


@register("SpaceToDepth")
class SpaceToDepthLayer(BlockMoveLayer):
    quantized_form = QSpaceToDepthBase     # int8 and uint8 only
    geometry = staticmethod(space_to_depth)
