"""ONE_HOT: off_value everywhere, on_value where the index matches the position along axis
(checks: core/ops/one_hot.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.one_hot import OneHotBase
from .common import register


@register("OneHot")
class OneHotLayer(OneHotBase):
    """inputs (indices, depth, on_value, off_value); depth is the output's size on axis."""

    def prepare(self) -> None:
        idx, out = self.buf(0), self.out
        axis = int(self.op.params.get("axis", -1)) % out.ndim
        self.idx_shape = idx.shape[:axis] + (1,) + idx.shape[axis:]
        self.depth = np.arange(out.shape[axis]).reshape(
            (-1,) + (1,) * (out.ndim - axis - 1))

    def run(self) -> None:
        out = self.outputs[0].buffer
        hot = self.inputs[0].buffer.reshape(self.idx_shape) == self.depth
        np.copyto(out, self.buf(3).reshape(()))
        np.copyto(out, self.buf(2).reshape(()), where=hot)
