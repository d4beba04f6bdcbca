"""The quantized kernels' registry and base class.

Quantized forms of an op (int8/uint8/int16 tensors with scale and zero point) are separate
kernel classes from the float ones, registered in `qkernels` under the same keys
("Type" or "Type.SUBTYPE"), or per input dtype where the 8-bit and int16 forms are different
kernels (`qregister(key, dtypes=...)`). The cpu registry's select hook (`quant_kernel_for`) picks the
quantized class when the op's `applies` says the op is quantized; otherwise the float kernel
(or a hybrid one) runs it.
"""
from __future__ import annotations

import numpy as np

from .....core.backend import KernelRegistry
from .....core.ir import Graph, Operation
from .....core.ir.operand import QUANTIZED_DTYPES
from ..common import CpuKernel
from . import qmath

qkernels = KernelRegistry("cpu")
# (key, input dtype) -> class, for ops whose 8-bit and int16 forms are different kernels
_by_dtype: dict[tuple[str, np.dtype], type] = {}


def qregister(*keys: str, dtypes=None):
    """Register a quantized kernel class under `keys`; with `dtypes`, only for inputs of those
    dtypes (another class may take the op's other dtypes)."""
    if dtypes is None:
        return qkernels.register(*keys)

    def deco(cls: type) -> type:
        for key in keys:
            for d in dtypes:
                if (key, np.dtype(d)) in _by_dtype:
                    raise ValueError(f"quantized kernel for {key} {np.dtype(d)} registered twice")
                _by_dtype[(key, np.dtype(d))] = cls
        return cls
    return deco

Q_DTYPES = QUANTIZED_DTYPES
I8, U8, I16 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16)


def is_quantized(graph: Graph, index: int) -> bool:
    """Whether operand `index` is an int8/uint8/int16 tensor with quantization parameters."""
    return index >= 0 and graph.operands[index].is_quantized


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
        return cls.outputs_quantized(op, graph)

    @classmethod
    def outputs_quantized(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        """`supports`' check that no int8/uint8/int16 output lacks quantization parameters."""
        for i in op.outputs:
            o = graph.operands[i]
            if o.dtype in Q_DTYPES and o.quant is None:
                return False, (f"{cls.backend_id} quantized {op.type}: output {o.name!r} "
                               f"({o.dtype}) has no quantization parameters")
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

    def filter_scales(self, x, w, y, cout: int, axis: int) -> np.ndarray:
        """The quantization checks of a convolution-like op (input `x`, filter or weights `w`
        with `cout` output channels along `axis`, output `y`): `x` and `y` quantized per tensor,
        the filter per tensor or per channel along `axis` (per tensor with uint8 activations),
        all scales positive and finite, int16 activations with zero points 0. Returns the
        filter's scales as float32."""
        op = self.op.type
        if w.quant is None:
            raise self.fail(f"quantized {op}: filter {w.name!r} has no quantization parameters")
        for t in (x, y):
            if t.quant.per_channel:
                raise self.fail(f"quantized {op}: {t.name!r} must be quantized per tensor")
        ws = np.asarray(w.quant.scale, np.float32).reshape(-1)
        if ws.size > 1:
            if x.dtype == U8:
                raise self.fail(f"quantized uint8 {op} needs a per-tensor filter scale (the "
                                f"interpreter takes per-channel scales only with int8/int16)")
            if ws.size != cout or w.quant.axis != axis:
                raise self.fail(f"quantized {op}: filter has {ws.size} scales along axis "
                                f"{w.quant.axis}, expected {cout} along axis {axis}")
        s_in, s_out = self.scale(x), self.scale(y)
        if not (np.all(ws > 0) and np.all(np.isfinite(ws)) and s_in > 0 and s_out > 0
                and np.isfinite(s_in) and np.isfinite(s_out)):
            raise self.fail(f"quantized {op}: scales must be positive and finite")
        if x.dtype == I16 and (self.zero_point(x) or self.zero_point(y)):
            raise self.fail(f"quantized int16 {op} needs zero points 0 on input and output")
        return ws

    def check_bias(self, b, x, cout: int, product) -> None:
        """A convolution's bias `b`: int64 with int16 activations (the interpreter reads an
        int16x8 bias as int64), else int32; `cout` values (unless its shape is dynamic); with
        uint8 activations, a scale within 2% of the output scale of `product` (input scale *
        filter scale), as TFLite's GetQuantizedConvolutionMultipler checks."""
        op = self.op.type
        want = np.dtype(np.int64) if x.dtype == I16 else np.dtype(np.int32)
        if b.dtype != want:
            raise self.fail(f"quantized {op} with {x.dtype} input needs an {want} bias, not "
                            f"{b.dtype} (the interpreter reads int16x8 biases as int64)")
        if not b.is_dynamic and int(np.prod(b.shape)) != cout:
            raise self.fail(f"quantized {op}: bias has {int(np.prod(b.shape))} values for "
                            f"{cout} output channels")
        if x.dtype != U8:       # like the interpreter: int8/int16 run with any bias scale
            return
        if b.quant is None:
            raise self.fail(f"quantized uint8 {op}: bias {b.name!r} has no scale (it must be "
                            f"input scale * filter scale)")
        bs = np.asarray(b.quant.scale, np.float64)
        out_s = np.float64(self.scale(self.outputs[0]))
        if bs.size not in (1, cout) or np.any(np.abs(product - bs) / out_s > 0.02):
            raise self.fail(f"quantized {op}: bias scale {bs[:4].tolist()} is not input scale * "
                            f"filter scale {np.ravel(product)[:4].tolist()}")

    def unary_operands(self) -> tuple:
        """The first input and the output of a quantized unary op, checked: one dtype and
        per-tensor quantization on both; else a compile failure."""
        x, y = self.inputs[0], self.outputs[0]
        name = self.op.subtype or self.op.type
        if x.dtype != y.dtype:
            raise self.fail(f"quantized {name}: input {x.dtype} and output {y.dtype} differ")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail(f"quantized {name} is per-tensor only")
        return x, y

    def check_same_quant(self, a, b) -> None:
        """TFLite requires equal scale and zero point on some ops (e.g. MAX_POOL, PAD)."""
        if not (np.array_equal(a.quant.scale, b.quant.scale)
                and np.array_equal(a.quant.zero_point, b.quant.zero_point)):
            raise self.fail(f"{self.op.type} needs the same scale and zero point on "
                            f"{a.name!r} and {b.name!r}")


def quant_kernel_for(op: Operation, graph: Graph) -> type[CpuKernel] | None:
    """The quantized kernel class for `op`, or None when it is not a quantized op."""
    dtype = graph.operands[op.inputs[0]].dtype if op.inputs and op.inputs[0] >= 0 else None
    keys = ([f"{op.type}.{op.subtype}"] if op.subtype else []) + [op.type]
    cls = next((_by_dtype[(k, dtype)] for k in keys if (k, dtype) in _by_dtype), None) \
        or qkernels.lookup(op)
    if cls is None or not cls.applies(op, graph):
        return None
    return cls
