"""DepthToSpace and SpaceToDepth on acl_cl: index tables (movement.TableLayer) of
core/ops/space_depth.py's geometry; 4-D NHWC inputs; quantized: int8 and uint8, as TFLite."""
from __future__ import annotations

from ....core.ops.base import refusing_as
from ....core.ops.space_depth import (QDepthToSpaceBase, QSpaceToDepthBase, depth_to_space,
                                      space_to_depth)
from .common import register
from .movement import SpatialLayer


@register("DepthToSpace")
class DepthToSpaceLayer(SpatialLayer):
    quantized_form = refusing_as(QDepthToSpaceBase, "acl_cl")     # int8 and uint8 only
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        return [depth_to_space(src, b).reshape(n, h * b, w * b, c // (b * b))]


@register("SpaceToDepth")
class SpaceToDepthLayer(SpatialLayer):
    quantized_form = refusing_as(QSpaceToDepthBase, "acl_cl")     # int8 and uint8 only
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        return [space_to_depth(src, b).reshape(n, h // b, w // b, b * b * c)]
