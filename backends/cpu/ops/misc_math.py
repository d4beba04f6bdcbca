"""Small arithmetic ops: ADD_N, BITWISE_XOR, RIGHT_SHIFT (float and integer, no quantized
kernels). (CUMSUM: cumsum.py; BUCKETIZE: bucketize.py; L2_NORMALIZATION,
LOCAL_RESPONSE_NORMALIZATION: norm.py.)"""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, register

I32_F32 = frozenset(np.dtype(t) for t in (np.float32, np.int32))
NUM64 = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.int64))
BITS = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8, np.uint16,
                                       np.uint32))


class SameDtype(CpuKernel):
    def check_out_dtype(self, dtype) -> None:
        if self.outputs[0].dtype != np.dtype(dtype):
            raise self.fail(f"output has dtype {self.outputs[0].dtype}, expected {dtype}")


@register("AddN")
class AddNLayer(SameDtype):
    """The element-wise sum of N inputs of one shape, added in input order."""

    dtypes = NUM64

    def validate(self) -> None:
        dt = self.inputs[0].dtype
        if any(t.dtype != dt for t in self.inputs):
            raise self.fail("ADD_N inputs differ in dtype")
        self.check_out_dtype(dt)

    def run(self) -> None:
        out = self.out
        for t in self.inputs:
            if t.buffer.shape != out.shape:
                raise ValueError(f"ADD_N input {t.buffer.shape} differs from output {out.shape}")
        np.copyto(out, self.inputs[0].buffer)
        for t in self.inputs[1:]:
            np.add(out, t.buffer, out=out)


@register("BitwiseXor")
class BitwiseXorLayer(SameDtype):
    dtypes = BITS

    def validate(self) -> None:
        if self.inputs[1].dtype != self.inputs[0].dtype:
            raise self.fail("operands differ in dtype")
        self.check_out_dtype(self.inputs[0].dtype)

    def run(self) -> None:
        np.bitwise_xor(self.buf(0), self.buf(1), out=self.out)


@register("RightShift")
class RightShiftLayer(BitwiseXorLayer):
    """x >> s (arithmetic for signed types); s is clamped to [0, bits - 1]."""

    def run(self) -> None:
        x = self.buf(0)
        s = np.clip(self.buf(1), 0, x.dtype.itemsize * 8 - 1).astype(x.dtype)
        np.right_shift(x, s, out=self.out)
