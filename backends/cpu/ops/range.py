"""RANGE (checks: core/ops/range.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.range import RangeBase
from .common import register


@register("Range")
class RangeLayer(RangeBase):
    """start, start + delta, ... below limit; floats accumulate as TFLite does (each value
    is the previous plus delta, rounded)."""

    def run(self) -> None:
        out = self.outputs[0].buffer
        start, delta = self.buf(0).reshape(-1)[0], self.buf(2).reshape(-1)[0]
        if out.dtype.kind == "f":
            out.fill(delta)
            if out.size:
                out[0] = start
            np.add.accumulate(out, out=out)
        else:
            np.multiply(np.arange(out.size, dtype=out.dtype), delta, out=out)
            out += start
