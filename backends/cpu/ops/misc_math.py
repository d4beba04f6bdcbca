"""Small arithmetic ops: CUMSUM, BUCKETIZE, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION
(float and integer, no quantized kernels). ADD_N: add_n.py; BITWISE_XOR, RIGHT_SHIFT:
bitwise.py."""
from __future__ import annotations

import numpy as np

from .common import F32, CpuKernel, activation, register

I32_F32 = frozenset(np.dtype(t) for t in (np.float32, np.int32))
NUM64 = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.int64))


class SameDtype(CpuKernel):
    def check_out_dtype(self, dtype) -> None:
        if self.outputs[0].dtype != np.dtype(dtype):
            raise self.fail(f"output has dtype {self.outputs[0].dtype}, expected {dtype}")


@register("Cumsum")
class CumsumLayer(SameDtype):
    """Running sums along axis (input 1); `exclusive` shifts them by one, `reverse` runs from
    the end."""

    dtypes = NUM64

    def validate(self) -> None:
        if self.inputs[1].dtype not in (np.int32, np.int64):
            raise self.fail(f"axis must be int32, not {self.inputs[1].dtype}")
        self.check_out_dtype(self.inputs[0].dtype)
        self.exclusive = bool(self.op.params.get("exclusive", False))
        self.reverse = bool(self.op.params.get("reverse", False))

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


@register("Bucketize")
class BucketizeLayer(CpuKernel):
    """The index of the bucket of each value: how many boundaries are <= it (int32)."""

    dtypes = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))

    def validate(self) -> None:
        if self.outputs[0].dtype != np.int32:
            raise self.fail(f"BUCKETIZE gives int32, not {self.outputs[0].dtype}")
        b = np.asarray(self.op.params.get("boundaries") or [], np.float32).reshape(-1)
        if b.size and np.any(np.diff(b) < 0):
            raise self.fail(f"boundaries {b.tolist()} are not sorted")
        # values are compared as the boundaries' float (doubles stay doubles)
        self.cmp = np.float64 if self.inputs[0].dtype == np.float64 else np.float32
        self.bounds = b.astype(self.cmp)

    def run(self) -> None:
        x = self.buf(0).astype(self.cmp, copy=False)
        self.out[...] = np.searchsorted(self.bounds, x, side="right")


@register("L2Normalization")
class L2NormalizationLayer(CpuKernel):
    """x / max(sqrt(sum(x^2)), 1e-6) along the last axis."""

    dtypes = F32

    def validate(self) -> None:
        self.act = activation(self.op.params.get("fused_activation_function"))

    def run(self) -> None:
        x, out = self.buf(0), self.out
        norm = np.sqrt(np.sum(np.square(x), axis=-1, keepdims=True, dtype=np.float32))
        np.divide(x, np.maximum(norm, np.float32(1e-6)), out=out)
        if self.act is not None:
            self.act(out)


@register("LocalResponseNormalization")
class LocalResponseNormalizationLayer(CpuKernel):
    """NHWC: x * (bias + alpha * sum of x^2 over channels c-radius..c+radius) ^ -beta."""

    dtypes = F32

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4 and not self.inputs[0].is_dynamic:
            raise self.fail(f"LOCAL_RESPONSE_NORMALIZATION needs a 4-D input, not "
                            f"{self.inputs[0].shape}")
        p = self.op.params
        self.radius = int(p.get("radius", 5))
        self.bias = np.float32(p.get("bias", 1.0))
        self.alpha = np.float32(p.get("alpha", 1.0))
        self.beta = np.float32(p.get("beta", 0.5))

    def run(self) -> None:
        x = self.buf(0)
        c = x.shape[-1]
        r = min(max(self.radius, 0), c)
        sq = np.pad(np.square(x), [(0, 0)] * (x.ndim - 1) + [(r, r)])
        window = np.zeros_like(x)
        for k in range(2 * r + 1):   # channels c - r .. c + r, zero outside
            window += sq[..., k:k + c]
        np.multiply(x, np.power(self.bias + self.alpha * window, -self.beta), out=self.out)
