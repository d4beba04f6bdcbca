"""Reverse (REVERSE_V2) on acl_cl: an index table (movement.TableLayer) of the flipped input;
the axes are checked as core/ops/reverse.py checks them."""
from __future__ import annotations

import numpy as np

from ....core.ops.reverse import flip_axes
from .common import register
from .movement import TableLayer


@register("Reverse")
class ReverseLayer(TableLayer):
    params_at = (1,)

    def tables(self, src):
        return [np.flip(src, axis=flip_axes(self.value(1), src.ndim))]
