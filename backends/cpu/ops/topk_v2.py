"""TOPK_V2. Parameters and validation: core/ops/topk_v2.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked
from ....core.ops.topk_v2 import TopKV2Base
from .common import register


@register("TopKV2")
class TopKV2Layer(TopKV2Base):
    """The k largest values along the last axis, descending; equal values by lower index."""

    def run(self) -> None:
        x = self.inputs[0].buffer
        values, indices = self.outputs[0].buffer, self.outputs[1].buffer
        k, n = values.shape[-1], x.shape[-1]
        if int(self.buf(1).reshape(-1)[0]) != k:
            raise ValueError(f"k {int(self.buf(1).reshape(-1)[0])}, output holds {k}")
        # A stable ascending sort of the reversed row, read backwards: descending, and equal
        # values in ascending original position.
        order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
        idx = (n - 1) - order
        copy_checked(values, np.take_along_axis(x, idx, axis=-1))
        np.copyto(indices, idx, casting="unsafe")
