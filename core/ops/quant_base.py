"""The shared base of the quantized kernels (int8/uint8/int16 tensors with scale and zero point):
reading scales and zero points, the quantization checks of TFLite's Prepare functions (filter
scales, bias types, per-tensor operands, equal quantization), and output clamps under fused
activations. The arithmetic itself is core/quant's."""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Operation
from ..ir.operand import QUANTIZED_DTYPES
from ..quant import qmath
from .base import OpKernel

Q_DTYPES = QUANTIZED_DTYPES
I8, U8, I16 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16)


class QuantOpKernel(OpKernel):
    """Base of the quantized kernels. `dtypes` lists the accepted dtypes of the first input.
    Subclasses read scales with `scale(t)` / `zero_point(t)` and rescale with qmath."""

    dtypes = Q_DTYPES
    quantized = True

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



__all__ = ["Q_DTYPES", "I8", "U8", "I16", "QuantOpKernel"]
