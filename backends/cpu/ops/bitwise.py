"""BITWISE_XOR and RIGHT_SHIFT on cpu: two integer tensors of one dtype (int8/16/32,
uint8/16/32) into that dtype; no quantized kernels."""
from __future__ import annotations

import numpy as np

from .common import OpKernel, register

BITS = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8, np.uint16,
                                       np.uint32))


@register("BitwiseXor")
class BitwiseXorLayer(OpKernel):
    dtypes = BITS

    def validate(self) -> None:
        dt = self.inputs[0].dtype
        if self.inputs[1].dtype != dt:
            raise self.fail("operands differ in dtype")
        if self.outputs[0].dtype != dt:
            raise self.fail(f"output has dtype {self.outputs[0].dtype}, expected {dt}")

    def run(self) -> None:
        np.bitwise_xor(self.buf(0), self.buf(1), out=self.out)


@register("RightShift")
class RightShiftLayer(BitwiseXorLayer):
    """x >> s (arithmetic for signed types); s is clamped to [0, bits - 1]."""

    def run(self) -> None:
        x = self.buf(0)
        s = np.clip(self.buf(1), 0, x.dtype.itemsize * 8 - 1).astype(x.dtype)
        np.right_shift(x, s, out=self.out)
