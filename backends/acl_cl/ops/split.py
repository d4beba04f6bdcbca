"""Split, SplitV and Unpack on acl_cl: one index table per output (movement.TableLayer)."""
from __future__ import annotations

import numpy as np

from ....core.compiler.shape_rules_indexing import norm_axis, split_sizes
from .common import register
from .movement import TableLayer


@register("Split")
class SplitLayer(TableLayer):
    """inputs (axis, x)."""
    data = 1
    params_at = (0,)

    def tables(self, src):
        axis = norm_axis(self.value(0)[0], src.ndim)
        return np.split(src, len(self.outputs), axis=axis)


@register("SplitV")
class SplitVLayer(TableLayer):
    """inputs (x, size_splits, axis)."""
    params_at = (1, 2)

    def tables(self, src):
        axis = norm_axis(self.value(2)[0], src.ndim)
        sizes = split_sizes(self.value(1), src.shape[axis])
        return np.split(src, np.cumsum(sizes)[:-1], axis=axis)


@register("Unpack")
class UnpackLayer(TableLayer):
    def tables(self, src):
        axis = int(self.op.params.get("axis", 0))
        if not -src.ndim <= axis < src.ndim or src.shape[axis] != len(self.outputs):
            raise ValueError(f"cannot unpack axis {axis} of {src.shape} into "
                             f"{len(self.outputs)} outputs")
        axis %= src.ndim
        return [src[(slice(None),) * axis + (k,)] for k in range(len(self.outputs))]
