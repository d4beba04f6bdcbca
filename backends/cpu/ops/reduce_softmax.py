"""Reductions (MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY/ALL) and SOFTMAX / LOG_SOFTMAX."""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, register
from .common import dtypes as dts

REDUCERS = {"MEAN": np.mean, "SUM": np.sum, "REDUCE_MAX": np.max, "REDUCE_MIN": np.min,
            "REDUCE_PROD": np.prod, "REDUCE_ANY": np.any, "REDUCE_ALL": np.all}


@register("Reduce")
class ReduceLayer(CpuKernel):
    # SUM / MEAN / PROD of unquantized 8/16-bit ints take the interpreter's quantized path
    # (rescaled by the tensors' scales), so only plain max/min are taken in those dtypes.
    dtypes = dts("float32", "int32", "int64", "bool")
    subtype_dtypes = {**dict.fromkeys(("REDUCE_ANY", "REDUCE_ALL"), dts("bool")),
                      **dict.fromkeys(("MEAN", "SUM", "REDUCE_PROD"),
                                      dts("float32", "int32", "int64")),
                      **dict.fromkeys(("REDUCE_MAX", "REDUCE_MIN"),
                                      dts("float32", "int32", "int64", "int8", "uint8", "int16"))}

    def validate(self) -> None:
        self.fn = REDUCERS[self.op.subtype]
        self.axes = None      # computed axes are read in every run; constant ones in prepare

    @staticmethod
    def normalized(raw: list[int], rank: int, error=ValueError) -> tuple[int, ...]:
        if any(not -rank <= a < rank for a in raw):
            raise error(f"axes {raw} out of range for rank {rank}")
        return tuple(sorted({a % rank for a in raw})) if rank else ()

    def target(self, axes: tuple[int, ...]) -> np.ndarray:
        """The output viewed with the reduced axes kept (size 1)."""
        x = self.buf(0)
        return self.out.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))

    def prepare(self) -> None:
        x = self.buf(0)
        if self.inputs[1].is_constant:      # normalized for the input's current rank
            self.axes = self.normalized([int(a) for a in self.buf(1).reshape(-1)], x.ndim,
                                        self.fail)
        self.dst = None if self.axes is None else self.target(self.axes)
        if x.size == 0 and self.op.subtype in ("REDUCE_MAX", "REDUCE_MIN"):
            raise self.fail("max/min over an empty tensor")

    def run(self) -> None:
        if self.dst is not None:
            self.fn(self.inputs[0].buffer, axis=self.axes, keepdims=True, out=self.dst)
            return
        x = self.inputs[0].buffer
        axes = self.normalized([int(a) for a in self.buf(1).reshape(-1)], x.ndim)
        self.fn(x, axis=axes, keepdims=True, out=self.target(axes))


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
