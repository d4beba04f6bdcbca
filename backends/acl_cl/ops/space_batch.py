"""SpaceToBatchND and BatchToSpaceND on acl_cl: index tables (movement.TableLayer) of
core/ops/space_batch.py's geometry (padding: -1, filled with zero or the zero point)."""
from __future__ import annotations

from ....core.ops.space_batch import batch_to_space, block_params, space_to_batch
from .common import register
from .movement import TableLayer


class BlockLayer(TableLayer):
    """inputs (x, block_shape, paddings or crops)."""

    params_at = (1, 2)

    def block(self, src):
        """core's `block_params` of the constant inputs, checked against the input's shape."""
        return block_params(self.inputs[1].data, self.inputs[2].data, src.shape)


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(BlockLayer):
    def tables(self, src):
        return [space_to_batch(src, *self.block(src), fill=-1)]


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(BlockLayer):
    def tables(self, src):
        return [batch_to_space(src, *self.block(src))]
