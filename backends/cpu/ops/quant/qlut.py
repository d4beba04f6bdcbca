"""Quantized transcendental ops computed through TFLite's lookup tables (see qlut_math):

  LOGISTIC, TANH (int8, uint8)        activations.cc PopulateLookupTable, kGenericOptimized
  ELU (int8)                          activations.cc, LUT of expm1 for x < 0
  GELU (int8, uint8, int16)           gelu.cc, LUT (int16: LUTPopulate<int16_t> + LUTLookup),
                                      exact erf form or the tanh approximation
  EXP (int8, int16), LOG (int8, int16), RSQRT (int16)
                                      exp.cc / elementwise.cc, LUTPopulate (8-bit or int16)
  SQRT (int8, int16)                  elementwise.cc SqrtEvalQuantized: per element
                                      static_cast<int>(sqrtf(in_scale * (x - zp)) / out_scale) + zp
                                      (float32 division, truncation toward zero), clamped.

Output parameters the interpreter insists on are refused here in the same terms (LOGISTIC
8-bit: output scale 1/256; int16 EXP/LOG/RSQRT/SQRT: zero points 0). RSQRT and SQRT reject
inputs below the zero point when they run, as the interpreter does. int16 LOGISTIC and TANH
(a fixed-point path) are in qtanh16. Not here: RSQRT int8 (Newton-Raphson fixed point),
uint8 ELU/EXP/LOG/RSQRT/SQRT and int16 ELU (the interpreter refuses those types).
"""
from __future__ import annotations

import numpy as np

from .....errors import ExecutionError
from .....core.quant import qlut_math as qm
from .base import I8, I16, U8, QuantKernel, quantized, register


class _LutKernel(QuantKernel):
    """A unary op run through a lookup table built in validate()."""

    int16_zero_points = True        # int16 needs input and output zero point 0

    def transform(self, x_scale, x_zp, y_scale, y_zp):
        raise NotImplementedError

    def check_output(self, x, y) -> None:
        """Refuse output parameters the interpreter refuses."""

    def validate(self) -> None:
        x, y = self.unary_operands()
        xs, xz, ys, yz = self.scale(x), self.zero_point(x), self.scale(y), self.zero_point(y)
        if x.dtype == I16 and self.int16_zero_points and (xz or yz):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0 on input and output "
                            f"(input {xz}, output {yz})")
        self.check_output(x, y)
        fn = self.transform(xs, xz, ys, yz)
        self.x_zp = xz
        if x.dtype == I16:
            self.table = qm.lut16(fn, xs, xz, ys, yz)
        else:
            self.table = qm.lut8(fn, xs, xz, ys, yz, x.dtype)

    def check_input(self, x: np.ndarray) -> None:
        """Runtime checks of the input values (none by default)."""

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        self.check_input(x)
        if x.dtype == I16:
            np.copyto(out, np.clip(qm.lookup16(x, self.table), -32768, 32767), casting="unsafe")
        else:
            qm.lookup(self.table, x, out=out)


@register("ElementwiseActivation.TANH", dtypes=(I8, U8), when=quantized)
class QTanh(_LutKernel):
    dtypes = frozenset({I8, U8})

    def transform(self, *params):
        return qm.tanhf


@register("ElementwiseActivation.LOGISTIC", dtypes=(I8, U8), when=quantized)
class QLogistic(_LutKernel):
    dtypes = frozenset({I8, U8})

    def check_output(self, x, y) -> None:
        if np.float64(self.scale(y)) != 1.0 / 256:
            raise self.fail(f"quantized LOGISTIC needs the output scale 1/256 (usually with "
                            f"zero point {-128 if y.dtype == I8 else 0}), not {self.scale(y)}")

    def transform(self, *params):
        return qm.logistic


@register("ElementwiseActivation.ELU", when=quantized)
class QElu(_LutKernel):
    dtypes = frozenset({I8})

    def transform(self, *params):
        return qm.elu


@register("ElementwiseActivation.GELU", when=quantized)
class QGelu(_LutKernel):
    dtypes = frozenset({I8, U8, I16})
    int16_zero_points = False

    def transform(self, *params):
        return qm.gelu_approximate if self.op.params.get("approximate", False) else qm.gelu


@register("ElementwiseUnary.EXP", when=quantized)
class QExp(_LutKernel):
    dtypes = frozenset({I8, I16})

    def transform(self, *params):
        return qm.expf


@register("ElementwiseUnary.LOG", when=quantized)
class QLog(_LutKernel):
    dtypes = frozenset({I8, I16})

    def transform(self, xs, xz, ys, yz):
        lo = -128 if self.inputs[0].dtype == I8 else -32768
        return qm.log_or(qm.F(qm.F(lo - yz) * qm.F(ys)))


class _NonNegative:
    what = "positive"

    def check_input(self, x: np.ndarray) -> None:
        if x.size and int(x.min()) < self.x_zp:
            raise ExecutionError(f"{self.op.type} {self.op.subtype}: quantized input below its "
                                 f"zero point ({self.op.subtype} is defined for {self.what} "
                                 f"values only)")


@register("ElementwiseUnary.RSQRT", dtypes=(I16,), when=quantized)
class QRsqrt(_NonNegative, _LutKernel):
    dtypes = frozenset({I16})

    def transform(self, xs, xz, ys, yz):
        return qm.rsqrt_or(qm.F(qm.F(32767) * qm.F(ys)))


@register("ElementwiseUnary.SQRT", when=quantized)
class QSqrt(_NonNegative, QuantKernel):
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
