"""The quantized kernels' registry and base class.

Quantized forms of an op (int8/uint8/int16 tensors with scale and zero point) are separate
kernel classes from the float ones, registered in `qkernels` under the same keys
("Type" or "Type.SUBTYPE"). The cpu registry's select hook (`quant_kernel_for`) picks the
quantized class when the op's `applies` says the op is quantized; otherwise the float kernel
(or a hybrid one) runs it.
"""
from __future__ import annotations

import numpy as np

from .....core.backend import KernelRegistry
from .....core.ir import Graph, Operation
from ..common import CpuKernel
from . import qmath

qkernels = KernelRegistry("cpu")
qregister = qkernels.register

Q_DTYPES = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16))
I8, U8, I16 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16)


def is_quantized(graph: Graph, index: int) -> bool:
    """Whether operand `index` is an int8/uint8/int16 tensor with quantization parameters."""
    if index < 0:
        return False
    o = graph.operands[index]
    return o.dtype in Q_DTYPES and o.quant is not None


class QuantKernel(CpuKernel):
    """Base of the quantized kernels. `dtypes` lists the accepted dtypes of the first input.
    Subclasses read scales with `scale(t)` / `zero_point(t)` and rescale with qmath."""

    dtypes = Q_DTYPES
    quantized = True

    @classmethod
    def applies(cls, op: Operation, graph: Graph) -> bool:
        """Whether this quantized class (rather than the float kernel) runs `op`: by default,
        when its first input is a quantized tensor."""
        return bool(op.inputs) and is_quantized(graph, op.inputs[0])

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        for i in op.outputs:
            o = graph.operands[i]
            if o.dtype in Q_DTYPES and o.quant is None:
                return False, f"cpu quantized {op.type}: output {o.name!r} ({o.dtype}) has no " \
                              f"quantization parameters"
        return True, ""

    # ------------------------------------------------------------------ parameters
    @staticmethod
    def scale(t) -> float:
        """The per-tensor scale of tensor `t` (a float32 value, as TFLite keeps it)."""
        return float(np.float32(t.quant.scale[0]))

    @staticmethod
    def zero_point(t) -> int:
        return int(t.quant.zero_point[0])

    def qrange(self, t=None, activation: str | None = None) -> tuple[int, int]:
        """The clamp of output `t` (default: the first output) under a fused activation."""
        t = self.outputs[0] if t is None else t
        return qmath.activation_range(activation, self.scale(t), self.zero_point(t), t.dtype)

    def check_same_quant(self, a, b) -> None:
        """TFLite requires equal scale and zero point on some ops (e.g. MAX_POOL, PAD)."""
        if not (np.array_equal(a.quant.scale, b.quant.scale)
                and np.array_equal(a.quant.zero_point, b.quant.zero_point)):
            raise self.fail(f"{self.op.type} needs the same scale and zero point on "
                            f"{a.name!r} and {b.name!r}")


def quant_kernel_for(op: Operation, graph: Graph) -> type[CpuKernel] | None:
    """The quantized kernel class for `op`, or None when it is not a quantized op."""
    cls = qkernels.lookup(op)
    if cls is None or not cls.applies(op, graph):
        return None
    return cls
