"""CUMSUM. Parameters and validation: core/ops/cumsum.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.cumsum import CumsumBase
from .common import register


@register("Cumsum")
class CumsumLayer(CumsumBase):
    """Running sums along axis (input 1); `exclusive` shifts them by one, `reverse` runs from
    the end."""

    def run(self) -> None:
        x, out = self.buf(0), self.out
        axis = int(self.buf(1).reshape(-1)[0])
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"axis {axis} out of range for rank {x.ndim}")
        axis %= x.ndim
        if self.reverse:
            x = np.flip(x, axis)
        acc = np.cumsum(x, axis=axis, dtype=x.dtype)
        if self.exclusive:
            acc = np.concatenate([np.zeros_like(np.take(acc, [0], axis=axis)),
                                  np.delete(acc, -1, axis=axis)], axis=axis) \
                if x.shape[axis] else acc
        if self.reverse:
            acc = np.flip(acc, axis)
        np.copyto(out, acc)
