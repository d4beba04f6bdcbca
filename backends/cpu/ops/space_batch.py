"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: the block geometry of core/ops/space_batch.py
applied to the data. Quantized SPACE_TO_BATCH_ND: backends/cpu/ops/quant/qmove.py."""
from __future__ import annotations

from ....core.ops.movement import copy_checked
from ....core.ops.space_batch import (BatchToSpaceNDBase, SpaceToBatchNDBase, batch_to_space,
                                      space_to_batch)
from .common import register


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(SpaceToBatchNDBase):
    """Pads the spatial dims (with the zero point when quantized), then moves each block
    offset into the batch."""

    def run(self) -> None:
        block, pads = self.params()
        copy_checked(self.out, space_to_batch(self.buf(0), block, pads, self.pad_value()))


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(BatchToSpaceNDBase):
    """The inverse of SPACE_TO_BATCH_ND, then crops the spatial dims."""

    def run(self) -> None:
        block, crops = self.params()
        copy_checked(self.out, batch_to_space(self.buf(0), block, crops))
