"""Reductions (MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY/ALL) and SOFTMAX / LOG_SOFTMAX."""
from __future__ import annotations

import numpy as np

from .common import ANY, CpuKernel, register

REDUCERS = {"MEAN": np.mean, "SUM": np.sum, "REDUCE_MAX": np.max, "REDUCE_MIN": np.min,
            "REDUCE_PROD": np.prod, "REDUCE_ANY": np.any, "REDUCE_ALL": np.all}


@register("Reduce")
class ReduceLayer(CpuKernel):
    dtypes = ANY

    def validate(self) -> None:
        axes = self.inputs[1]
        if not axes.is_constant:
            raise self.fail("non-constant reduction axes need dynamic shapes (not yet supported)")
        rank = len(self.inputs[0].shape)
        raw = [int(a) for a in axes.buffer.reshape(-1)]
        if any(not -rank <= a < rank for a in raw):
            raise self.fail(f"axes {raw} out of range for rank {rank}")
        self.axes = tuple(sorted({a % rank for a in raw})) if rank else ()
        self.fn = REDUCERS[self.op.subtype]

    def prepare(self) -> None:
        x = self.buf(0)
        shape = tuple(1 if i in self.axes else d for i, d in enumerate(x.shape))
        self.dst = self.out.reshape(shape)
        if x.size == 0 and self.op.subtype in ("REDUCE_MAX", "REDUCE_MIN"):
            raise self.fail("max/min over an empty tensor")

    def run(self) -> None:
        self.fn(self.inputs[0].buffer, axis=self.axes, keepdims=True, out=self.dst)


@register("Softmax")
class SoftmaxLayer(CpuKernel):
    def prepare(self) -> None:
        x = self.buf(0)
        self.beta = np.float32(self.op.params.get("beta", 1.0))
        self.mx = np.empty(x.shape[:-1] + (1,), x.dtype)
        self.sm = np.empty_like(self.mx)

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.max(x, axis=-1, keepdims=True, out=self.mx)
        np.subtract(x, self.mx, out=out)
        if self.beta != 1:
            np.multiply(out, self.beta, out=out)
        np.exp(out, out=out)
        np.sum(out, axis=-1, keepdims=True, out=self.sm)
        np.divide(out, self.sm, out=out)


@register("LogSoftmax")
class LogSoftmaxLayer(SoftmaxLayer):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.max(x, axis=-1, keepdims=True, out=self.mx)
        np.subtract(x, self.mx, out=out)
        np.sum(np.exp(out), axis=-1, keepdims=True, out=self.sm)
        np.log(self.sm, out=self.sm)
        np.subtract(out, self.sm, out=out)
