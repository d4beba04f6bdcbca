"""Reductions (MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY/ALL) on float, integer and bool tensors. Axes
and validation: core/ops/reduce.py. Quantized form: backends/cpu/ops/quant/qreduce.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import ints
from ....core.ops.reduce import ReduceBase, normalized_axes
from .common import register

REDUCERS = {"MEAN": np.mean, "SUM": np.sum, "REDUCE_MAX": np.max, "REDUCE_MIN": np.min,
            "REDUCE_PROD": np.prod, "REDUCE_ANY": np.any, "REDUCE_ALL": np.all}


@register("Reduce")
class ReduceLayer(ReduceBase):
    def validate(self) -> None:
        super().validate()
        self.fn = REDUCERS[self.op.subtype]

    def target(self, axes: tuple[int, ...]) -> np.ndarray:
        """The output viewed with the reduced axes kept (size 1)."""
        x = self.buf(0)
        return self.out.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))

    def prepare(self) -> None:
        super().prepare()
        self.dst = None if self.axes is None else self.target(self.axes)

    def run(self) -> None:
        if self.dst is not None:
            self.fn(self.inputs[0].buffer, axis=self.axes, keepdims=True, out=self.dst)
            return
        x = self.inputs[0].buffer
        axes = normalized_axes(ints(self.buf(1)), x.ndim)
        self.fn(x, axis=axes, keepdims=True, out=self.target(axes))
