"""Reduce (SUM, MEAN, REDUCE_MAX/MIN/PROD over constant axes) on float32 (data.cl reduce_mid,
reduce6); the axes are checked and normalized as core/ops/reduce.py does. Quantized MEAN:
quant_reduce.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.reduce import normalized_axes, reduced_count
from .common import ClKernel, reduce_meta, register

KIND = {"SUM": 0, "MEAN": 1, "REDUCE_MAX": 2, "REDUCE_MIN": 3, "REDUCE_PROD": 4}


@register(*(f"Reduce.{k}" for k in KIND))
class ReduceLayer(ClKernel):
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        axes = list(normalized_axes(self.param_values(1), len(x.shape), self.fail))
        count = reduced_count(x.shape, axes)
        if count == 0 and self.op.subtype in ("REDUCE_MAX", "REDUCE_MIN", "MEAN"):
            raise self.fail(f"{self.op.subtype} over an empty axis")
        if axes and axes == list(range(axes[0], axes[-1] + 1)):    # consecutive axes
            inner = int(np.prod(x.shape[axes[-1] + 1:], dtype=np.int64))
            self.launch(self.kernel("data.cl", "reduce_mid"), (y.size,), None, x.buffer,
                        y.buffer, np.int32(KIND[self.op.subtype]), np.int32(count),
                        np.int32(inner), np.int32(y.size))
            return
        self.meta = self.const_buffer(reduce_meta(x.shape, axes))
        self.launch(self.kernel("data.cl", "reduce6"), (y.size,), None, x.buffer, y.buffer,
                    self.meta, np.int32(KIND[self.op.subtype]), np.int32(count), np.int32(y.size))
