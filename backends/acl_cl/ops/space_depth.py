"""DepthToSpace and SpaceToDepth on acl_cl: index tables (movement.TableLayer) of
core/ops/space_depth.py's geometry; 4-D NHWC inputs."""
from __future__ import annotations

from ....core.ops.space_depth import depth_to_space, space_to_depth
from .common import register
from .movement import SpatialLayer


@register("DepthToSpace")
class DepthToSpaceLayer(SpatialLayer):
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        return [depth_to_space(src, b).reshape(n, h * b, w * b, c // (b * b))]


@register("SpaceToDepth")
class SpaceToDepthLayer(SpatialLayer):
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        return [space_to_depth(src, b).reshape(n, h // b, w // b, b * b * c)]
