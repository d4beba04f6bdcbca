"""SELECT and SELECT_V2 on cpu: out = where(condition, x, y) with a bool condition; x, y and
the output of any one dtype (quantized ones included: values move unchanged). The checks and
SELECT's row-picking condition: core/ops/select.py."""
from __future__ import annotations

import numpy as np

from .common import register
from ....core.ops.select import SelectBase, SelectV2Base


@register("SelectV2")
class SelectV2Layer(SelectV2Base):
    """out = where(condition, x, y), all three broadcast."""

    def prepare(self) -> None:
        self.c = self.buf(0).reshape(self.check_shapes())
        self.x, self.y = self.buf(1), self.buf(2)

    def run(self) -> None:
        out = self.outputs[0].buffer
        np.copyto(out, self.y)
        np.copyto(out, self.x, where=self.c)


@register("Select")
class SelectLayer(SelectV2Layer, SelectBase):
    """out = where(condition, x, y); a rank-1 condition picks whole rows of x or y."""
