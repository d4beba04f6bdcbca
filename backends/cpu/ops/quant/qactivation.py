"""Quantized RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU, PRELU, ABS and NEG with the
interpreter's integer arithmetic (probed exhaustively over every 8-bit value and all 65536 int16
values; lengths with and without vector tails: no op here has a vector/scalar split, every
element rounds the reference way, halves away from zero, unless said otherwise).

RELU family (activations.cc ReluPrepare / QuantizedReluX): M = QuantizeMultiplier(float32
  s_in / s_out); y = clamp(zp_out + MultiplyByQuantizedMultiplier(x - zp_in, M),
  zp_out + roundf(lo / s_out), zp_out + roundf(hi / s_out)) within the dtype. int8/uint8 all four;
  int16 RELU and RELU6 only, with zero points 0 (the interpreter refuses the rest).
LEAKY_RELU (LeakyReluPrepare / QuantizeLeakyRelu): M_id = QM(float32 s_in / s_out), M_alpha =
  QM(float32 s_in * alpha / s_out); v = x - zp_in; y = zp_out + (v >= 0 ? MBQM(v, M_id) :
  MBQM(v, M_alpha)), clamped to the dtype. For 8-bit inputs with a negative alpha multiplier the
  interpreter computes -MBQM(v, -M_alpha) (ties of the high multiply go toward zero, probed);
  int16 (zero points 0) uses the negative multiplier as it is.
PRELU (PreluPrepare / BroadcastPrelu): M1 = QM(float32 s_in / s_out), M2 = QM(float32 s_in *
  s_alpha / s_out); v = x - zp_in; y = zp_out + (v >= 0 ? MBQM(v, M1) : MBQM(v * (alpha -
  zp_alpha), M2)), clamped; alpha broadcasts to the input's shape. int8 and uint8 only: the
  interpreter's int16 PRELU reads the int16 alpha buffer as int8 bytes (every odd element of a
  negative input gets the high byte of an alpha), which is not reproduced — refused.
ABS (elementwise.cc AbsPrepare / AbsEval): int8, int16 (zero points 0). v = |x - zp_in|;
  y = v + zp_out when the float32 scales are equal, else MBQM(v, QM(float32 s_in / s_out)) +
  zp_out; clamped.
NEG (neg.cc): int8 and int16 negate the stored integer (two's complement wrap, -(-128) = -128),
  ignoring the quantization parameters, as the interpreter does. uint8 ABS/NEG: refused there.

Unary ops are precomputed into a table over every input value (qlut_math.value_table).
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qmath
from .base import I8, I16, U8, QuantKernel, is_quantized, quantized, register
from .....core.quant.qlut_math import lookup, value_table

F32 = np.float32
RELUS = ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1")
INT16_RELUS = frozenset({"RELU", "RELU6"})


def qmult(real) -> tuple[int, int]:
    """QuantizeMultiplier of a real multiplier (any sign or magnitude) as Python ints."""
    m, s = qmath.quantize_multiplier(float(real))
    return int(m), int(s)


def mbqm(x, multiplier: int, shift: int) -> np.ndarray:
    return qmath.multiply_by_quantized_multiplier(x, multiplier, shift)


class _UnaryTable(QuantKernel):
    """A quantized unary op computed once per input value in validate() (`compute`)."""

    int16_zero_points = True     # the interpreter needs zero points 0 on int16 input and output

    def compute(self, v: np.ndarray) -> np.ndarray:
        """The int64 result (before the dtype clamp) for every int64 input value v."""
        raise NotImplementedError

    def configure_params(self) -> None:
        """Read scales and zero points (after the common checks)."""

    def validate(self) -> None:
        x, y = self.unary_operands()
        self.xs, self.xz = self.scale(x), self.zero_point(x)
        self.ys, self.yz = self.scale(y), self.zero_point(y)
        if x.dtype == I16 and self.int16_zero_points and (self.xz or self.yz):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0 on input and output (input "
                            f"{self.xz}, output {self.yz}), as TFLite")
        self.configure_params()
        lo, hi = qmath.dtype_range(x.dtype)
        self.table = value_table(x.dtype, lambda v: np.clip(self.compute(v), lo, hi))

    def run(self) -> None:
        lookup(self.table, self.inputs[0].buffer, out=self.outputs[0].buffer)


@register(*(f"ElementwiseActivation.{k}" for k in RELUS),
          when=quantized)
class QRelu(_UnaryTable):
    """RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1 with input->output requantization."""

    @classmethod
    def supports(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if x.dtype == I16 and op.subtype not in INT16_RELUS:
            return False, f"the interpreter has no int16 {op.subtype}"
        return super().supports(op, graph)

    def configure_params(self) -> None:
        self.m, self.s = qmult(F32(self.xs) / F32(self.ys))
        self.lo, self.hi = qmath.activation_range(self.op.subtype, self.ys, self.yz,
                                                  self.inputs[0].dtype)

    def compute(self, v):
        return np.clip(mbqm(v - self.xz, self.m, self.s) + self.yz, self.lo, self.hi)


@register("ElementwiseActivation.LEAKY_RELU", when=quantized)
class QLeakyRelu(_UnaryTable):
    """LEAKY_RELU with an identity and an alpha multiplier."""

    def configure_params(self) -> None:
        alpha = F32(self.op.params.get("alpha", 0.2))
        self.m_id, self.s_id = qmult(F32(self.xs) / F32(self.ys))
        self.m_al, self.s_al = qmult(F32(F32(self.xs) * alpha) / F32(self.ys))

    def compute(self, v):
        v = v - self.xz
        if self.m_al < 0 and self.inputs[0].dtype != I16:
            neg = -mbqm(v, -self.m_al, self.s_al)
        else:
            neg = mbqm(v, self.m_al, self.s_al)
        return np.where(v >= 0, mbqm(v, self.m_id, self.s_id), neg) + self.yz


@register("ElementwiseUnary.ABS", when=quantized)
class QAbs(_UnaryTable):
    dtypes = frozenset({I8, I16})

    def configure_params(self) -> None:
        self.rescale = F32(self.xs) != F32(self.ys)
        self.m, self.s = qmult(F32(self.xs) / F32(self.ys))

    def compute(self, v):
        v = np.abs(v - self.xz)
        return (mbqm(v, self.m, self.s) if self.rescale else v) + self.yz


@register("ElementwiseUnary.NEG", when=quantized)
class QNeg(QuantKernel):
    """NEG of the stored integers (int8, int16), wrapping, quantization parameters ignored."""

    dtypes = frozenset({I8, I16})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized NEG: input {x.dtype} and output {y.dtype} differ")

    def run(self) -> None:
        np.negative(self.inputs[0].buffer, out=self.outputs[0].buffer)


@register("PReLU", when=quantized)
class QPRelu(QuantKernel):
    """PRELU of a quantized input with a quantized alpha (int8, uint8)."""

    dtypes = frozenset({I8, U8})

    @classmethod
    def supports(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if x.dtype == I16 and x.quant is not None:
            return False, ("int16 PRELU is refused: the interpreter reads its int16 alpha as "
                           "int8 bytes (not reproduced)")
        if len(op.inputs) > 1 and not is_quantized(graph, op.inputs[1]):
            return False, "quantized PRELU needs a quantized alpha"
        return super().supports(op, graph)

    def validate(self) -> None:
        x, alpha, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if not x.dtype == alpha.dtype == y.dtype:
            raise self.fail(f"quantized PRELU needs input, alpha and output of one type, not "
                            f"{x.dtype}, {alpha.dtype}, {y.dtype}")
        if any(t.quant.per_channel for t in (x, alpha, y)):
            raise self.fail("quantized PRELU is per-tensor only")
        xs, ys, as_ = F32(self.scale(x)), F32(self.scale(y)), F32(self.scale(alpha))
        self.xz, self.az, self.yz = self.zero_point(x), self.zero_point(alpha), \
            self.zero_point(y)
        self.m1, self.s1 = qmult(xs / ys)
        self.m2, self.s2 = qmult(F32(xs * as_) / ys)
        self.lo, self.hi = qmath.dtype_range(x.dtype)

    def prepare(self) -> None:
        x, alpha, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if tuple(y.shape) != tuple(x.shape) or \
                np.broadcast_shapes(x.shape, alpha.shape) != tuple(x.shape):
            raise self.fail(f"PRELU alpha {tuple(alpha.shape)} must broadcast to the input "
                            f"{tuple(x.shape)}, and the output keep the input's shape "
                            f"(got {tuple(y.shape)})")

    def run(self) -> None:
        v = self.inputs[0].buffer.astype(np.int64) - self.xz
        a = self.inputs[1].buffer.astype(np.int64) - self.az
        pos = v >= 0
        r = mbqm(np.where(pos, v, v * a), np.where(pos, self.m1, self.m2),
                 np.where(pos, self.s1, self.s2))
        qmath.clamp_cast(r + self.yz, self.lo, self.hi, self.outputs[0].dtype,
                         out=self.outputs[0].buffer)
