"""Quantized ElementwiseUnary on cpu: ABS, NEG, EXP, LOG, RSQRT, SQRT, bit-exact with the
interpreter. QUANTIZE: quantize.py. Float form: backends/cpu/ops/elementwise.py (shared with the
other backends: core/ops/elementwise_unary.py).

ABS (elementwise.cc AbsPrepare / AbsEval): int8, int16 (zero points 0). v = |x - zp_in|;
  y = v + zp_out when the float32 scales are equal, else MBQM(v, QM(float32 s_in / s_out)) +
  zp_out; clamped. Precomputed into a table over every input value (qtable.UnaryTableKernel;
  probed exhaustively over every 8-bit value and all 65536 int16 values, halves away from zero).
NEG (neg.cc): int8 and int16 negate the stored integer (two's complement wrap, -(-128) = -128),
  ignoring the quantization parameters, as the interpreter does. uint8 ABS/NEG: refused there.

Through TFLite's lookup tables (core/quant/qlut_math.py, core/ops/quant_lut.py):
  EXP (int8, int16), LOG (int8, int16), RSQRT (int16)
                                      exp.cc / elementwise.cc, LUTPopulate (8-bit or int16)
  SQRT (int8, int16)                  elementwise.cc SqrtEvalQuantized: per element
                                      static_cast<int>(sqrtf(in_scale * (x - zp)) / out_scale) + zp
                                      (float32 division, truncation toward zero), clamped.
  RSQRT int8          elementwise.cc RsqrtEvalQuantizedInt8 (scalar, per element): the inverse
                      square root of (x - zp) from GetInvSqrtQuantizedMultiplierExp (fixed-point
                      Newton-Raphson), rescaled twice with MultiplyByQuantizedMultiplier (the
                      reference rounding, halves away from zero) by 1 / (sqrtf(in_scale) *
                      out_scale); x == zp gives 127 (core/quant/qunary_math.rsqrt_int8). Every
                      result depends on the input byte only, so the kernel is a 256-entry table
                      computed at compile time.

Output parameters the interpreter insists on are refused here in the same terms (int16
EXP/LOG/RSQRT/SQRT: zero points 0). RSQRT and SQRT reject inputs below the zero point when they
run, as the interpreter does. Not here: uint8 EXP/LOG/RSQRT/SQRT (the interpreter refuses them).
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qlut_math as qm
from .....core.quant.qmath import multiply_by_quantized_multiplier as mbqm
from .....core.quant.qmath import quantize_multiplier_int as qmult
from .....core.quant.qunary_math import rsqrt_int8
from .....errors import ExecutionError
from .base import I8, I16, QuantOpKernel, quantized, register
from .qtable import LutKernel, UnaryTableKernel

F32 = np.float32


class NonNegativeInput:
    """Mixed in before the kernel: run() fails on inputs below the zero point (`self.x_zp`)."""

    what = "positive"

    def check_input(self, x: np.ndarray) -> None:
        if x.size and int(x.min()) < self.x_zp:
            raise ExecutionError(f"{self.op.type} {self.op.subtype}: quantized input below its "
                                 f"zero point ({self.op.subtype} is defined for {self.what} "
                                 f"values only)")


@register("ElementwiseUnary.ABS", when=quantized)
class QAbsLayer(UnaryTableKernel):
    dtypes = frozenset({I8, I16})

    def configure_params(self) -> None:
        self.rescale = F32(self.xs) != F32(self.ys)
        self.m, self.s = qmult(F32(self.xs) / F32(self.ys))

    def compute(self, v):
        v = np.abs(v - self.xz)
        return (mbqm(v, self.m, self.s) if self.rescale else v) + self.yz


@register("ElementwiseUnary.NEG", when=quantized)
class QNegLayer(QuantOpKernel):
    """NEG of the stored integers (int8, int16), wrapping, quantization parameters ignored."""

    dtypes = frozenset({I8, I16})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized NEG: input {x.dtype} and output {y.dtype} differ")

    def run(self) -> None:
        np.negative(self.inputs[0].buffer, out=self.outputs[0].buffer)


@register("ElementwiseUnary.EXP", when=quantized)
class QExpLayer(LutKernel):
    dtypes = frozenset({I8, I16})

    def transform(self, *params):
        return qm.expf


@register("ElementwiseUnary.LOG", when=quantized)
class QLogLayer(LutKernel):
    dtypes = frozenset({I8, I16})

    def transform(self, xs, xz, ys, yz):
        lo = -128 if self.inputs[0].dtype == I8 else -32768
        return qm.log_or(qm.F(qm.F(lo - yz) * qm.F(ys)))


@register("ElementwiseUnary.RSQRT", dtypes=(I16,), when=quantized)
class QRsqrtLayer(NonNegativeInput, LutKernel):
    dtypes = frozenset({I16})

    def transform(self, xs, xz, ys, yz):
        return qm.rsqrt_or(qm.F(qm.F(32767) * qm.F(ys)))


@register("ElementwiseUnary.SQRT", when=quantized)
class QSqrtLayer(NonNegativeInput, QuantOpKernel):
    """SqrtEvalQuantized, vectorized (float32 throughout, truncating conversion)."""
    dtypes = frozenset({I8, I16})
    what = "non-negative"

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"SQRT: input {x.dtype} and output {y.dtype} differ")
        self.x_zp, self.y_zp = self.zero_point(x), self.zero_point(y)
        if x.dtype == I16 and (self.x_zp or self.y_zp):
            raise self.fail(f"int16 SQRT needs zero points 0 on input and output "
                            f"(input {self.x_zp}, output {self.y_zp})")
        self.xs, self.ys = np.float32(self.scale(x)), np.float32(self.scale(y))
        info = np.iinfo(y.dtype)
        self.lo, self.hi = int(info.min), int(info.max)

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        self.check_input(x)
        d = (x.astype(np.int32) - self.x_zp).astype(np.float32) * self.xs
        q = np.trunc(np.sqrt(d) / self.ys).astype(np.int64) + self.y_zp
        np.copyto(out, np.clip(q, self.lo, self.hi), casting="unsafe")


@register("ElementwiseUnary.RSQRT", dtypes=(I8,), when=quantized)
class QRsqrtInt8Layer(NonNegativeInput, QuantOpKernel):
    """int8 RSQRT (a 256-entry table of qunary_math.rsqrt_int8); int16 RSQRT is QRsqrtLayer."""

    dtypes = frozenset({I8})

    def validate(self) -> None:
        x, y = self.unary_operands()
        self.x_zp = self.zero_point(x)
        params = (self.scale(x), self.x_zp, self.scale(y), self.zero_point(y))
        self.table = qm.value_table(I8, lambda v: rsqrt_int8(v, *params))

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        self.check_input(x)
        qm.lookup(self.table, x, out=out)
