"""Reduce (SUM, MEAN, REDUCE_MAX/MIN/PROD over constant axes), Softmax, LogSoftmax."""
from __future__ import annotations

import numpy as np

from .common import ClKernel, reduce_meta, register

KIND = {"SUM": 0, "MEAN": 1, "REDUCE_MAX": 2, "REDUCE_MIN": 3, "REDUCE_PROD": 4}


@register(*(f"Reduce.{k}" for k in KIND))
class ReduceLayer(ClKernel):
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        rank = len(x.shape)
        raw = self.param_values(1)
        if any(not -rank <= a < rank for a in raw):
            raise self.fail(f"axes {raw} out of range for rank {rank}")
        axes = sorted({a % rank for a in raw}) if rank else []
        count = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
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


@register("Softmax", "LogSoftmax")
class SoftmaxLayer(ClKernel):
    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        cols = x.shape[-1] if x.shape else 1
        rows = x.size // max(cols, 1)
        beta = np.float32(self.op.params.get("beta", 1.0)) if self.op.type == "Softmax" else \
            np.float32(1.0)
        self.launch(self.kernel("data.cl", "softmax_rows"), (rows,), None, x.buffer, y.buffer,
                    np.int32(cols), beta, np.int32(self.op.type == "LogSoftmax"), np.int32(rows))
