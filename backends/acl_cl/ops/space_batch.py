"""SpaceToBatchND and BatchToSpaceND on acl_cl: index tables (movement.TableLayer) of
core/ops/space_batch.py's geometry (padding: -1, filled with zero or the zero point)."""
from __future__ import annotations

import numpy as np

from ....core.ops.space_batch import batch_to_space, check_block, space_to_batch
from .common import register
from .movement import TableLayer


def _block(kernel, src) -> tuple[list[int], np.ndarray]:
    block = kernel.value(1)
    pads = np.asarray(kernel.inputs[2].data).reshape(-1, 2).astype(np.int64)
    check_block(block, pads, src.shape)
    return block, pads


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        return [space_to_batch(src, *_block(self, src), fill=-1)]


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        return [batch_to_space(src, *_block(self, src))]
