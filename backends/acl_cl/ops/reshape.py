"""Reshape / Squeeze / ExpandDims on acl_cl: a device copy. Quantized (8-bit) form:
quant_move.py."""
from __future__ import annotations

from .common import ByteKernel, register


@register("Reshape", "Squeeze", "ExpandDims")
class ReshapeLayer(ByteKernel):
    """A copy between the two planned buffers (they may not alias: lifetimes differ)."""
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.nbytes != y.nbytes:
            raise self.fail(f"reshape of {x.shape} to {y.shape} changes the element count")
        self.copy(x.buffer, y.buffer, y.nbytes)
