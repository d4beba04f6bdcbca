"""SOFTMAX and LOG_SOFTMAX: the parameters, validation and quantized tables and multipliers of
TFLite's activations.cc (SoftmaxPrepare, LogSoftmaxPrepare) that every backend shares. Both run
over the last axis; SOFTMAX scales its input by `beta`.

- SOFTMAX int8 / uint8 (-> the same type, or -> int16), the interpreter's optimized
  SoftmaxInt8LUT: table[255 - v] = expf(-input_scale * beta * v) for v in 0..255 (float32,
  PopulateSoftmaxLookupTable: `softmax_exp_table`). The interpreter requires the int8 output's
  zero point to be -128 and its scale within 0.1% of 1/256; other output parameters are refused
  for int8. The uint8 form (and an int16 output of an 8-bit input) accepts any output
  parameters.
- SOFTMAX int16 -> int16, reference_ops::SoftmaxInt16: tables by gen_lut in double (`gen_lut16`:
  512 steps + 1, each sample biased by half the interpolation error at the step's midpoint,
  values * 32768 rounded half away from zero) of exp over [-10, 0] (`EXP_LUT`) and of
  1 / (1 + x) over [0, 1] (`RECIPROCAL_LUT`); multiplier QuantizeMultiplier(float32(in_scale *
  beta) / (10 / 65535)), so that input differences [-65535, 0] map to [-10, 0]. The interpreter
  requires zero points 0; output scale 1/32768 is what the arithmetic produces (other output
  scales are refused here, so that results mean what they say). Ranks 1 to 4.
- LOG_SOFTMAX int8 / uint8 (the float lookup-table form of kGenericOptimized): output scale
  exactly 16/256 and zero point 127 (int8) / 255 (uint8), else refused; table[255 - v] =
  expf(-input_scale * v) (beta 1). int16 LOG_SOFTMAX is refused by the interpreter (and so
  here).

Kernels: backends/cpu/ops/softmax.py (float), backends/cpu/ops/quant/qsoftmax.py,
qsoftmax16.py and qlogsoftmax.py (quantized, with the arithmetic), acl_neon ops/softmax.py and
ops/quant_softmax.py, acl_cl ops/softmax.py and ops/quant_softmax.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..quant import qlut_math as qm
from ..quant.qmath import dtype_range, quantize_multiplier
from .base import OpKernel
from .quant_base import I8, I16, U8, QuantOpKernel

F32 = np.float32


def softmax_exp_table(input_scale: float, beta: float = 1.0) -> np.ndarray:
    """PopulateSoftmaxLookupTable: table[255 - v] = expf(-input_scale * beta * v), float32."""
    scale = F32(-F32(input_scale) * F32(beta))
    table = np.empty(256, F32)
    for v in range(256):
        table[255 - v] = qm.expf(F32(scale * F32(v)))
    return table


def _round(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5), x)


def gen_lut16(fn, lo: float, hi: float) -> np.ndarray:
    """gen_lut<double, int16_t, int16_t>(fn, lo, hi, -1, 1): 513 int16 entries (int64 array)."""
    steps = 512
    step = (hi - lo) / steps
    half = step / 2
    inv = 65536.0 / 2.0
    table = np.empty(steps + 1, np.int64)
    for i in range(steps):
        val, mid, nxt = fn(lo + i * step), fn(lo + i * step + half), fn(lo + (i + 1) * step)
        sample = _round(val * inv)
        interpolated = _round((nxt * inv + _round(val * inv)) / 2)
        bias = _round((interpolated - _round(mid * inv)) / 2)
        table[i] = int(min(max(sample - bias, -32768.0), 32767.0))
    table[steps] = int(min(max(_round(fn(hi) * inv), -32768.0), 32767.0))
    return table


EXP_LUT = gen_lut16(math.exp, -10.0, 0.0)
RECIPROCAL_LUT = gen_lut16(lambda v: 1.0 / (1.0 + v), 0.0, 1.0)


class SoftmaxBase(OpKernel):
    """Float SOFTMAX and LOG_SOFTMAX over the last axis."""

    def beta_param(self) -> float:
        """SOFTMAX's beta as the model gives it (1 when absent)."""
        return self.op.params.get("beta", 1.0)


class QSoftmaxBase(QuantOpKernel):
    """Quantized 8-bit SOFTMAX: `table` (the exp table), `out_scale` (float32), `zp` (the
    output zero point) and the output type's range (`lo`, `hi`)."""

    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype and y.dtype != I16:
            raise self.fail(f"quantized SOFTMAX {x.dtype} -> {y.dtype} is not supported "
                            f"(same input and output type, or int16 output, only)")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail("SOFTMAX is quantized per tensor only")
        if y.dtype == I8 and (self.zero_point(y) != -128
                              or abs(self.scale(y) - 1 / 256) > 0.001 / 256):
            raise self.fail(f"int8 SOFTMAX needs the output scale 1/256 and zero point -128, "
                            f"not {self.scale(y)} and {self.zero_point(y)}")
        self.table = softmax_exp_table(self.scale(x), self.op.params.get("beta", 1.0))
        self.out_scale = F32(self.scale(y))
        self.zp = self.zero_point(y)
        self.lo, self.hi = dtype_range(y.dtype)


class QSoftmaxInt16Base(QuantOpKernel):
    """Quantized int16 SOFTMAX: (`mult`, `shift`) scale input differences onto EXP_LUT's
    range."""

    dtypes = frozenset({I16})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if y.dtype != I16:
            raise self.fail(f"int16 SOFTMAX needs an int16 output, not {y.dtype}")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail("SOFTMAX is quantized per tensor only")
        if self.zero_point(x) or self.zero_point(y) or self.scale(y) != 1.0 / 32768:
            raise self.fail(f"int16 SOFTMAX needs input zero point 0 and output scale 1/32768 "
                            f"with zero point 0 (input zero point {self.zero_point(x)}, output "
                            f"{self.scale(y)}, {self.zero_point(y)})")
        if not 1 <= len(x.shape) <= 4:
            raise self.fail(f"int16 SOFTMAX supports ranks 1 to 4, not {len(x.shape)}")
        beta = F32(self.op.params.get("beta", 1.0))
        real = float(F32(F32(self.scale(x)) * beta)) / (10.0 / 65535.0)
        self.mult, self.shift = (int(a) for a in quantize_multiplier(real))


class QLogSoftmaxBase(QuantOpKernel):
    """Quantized 8-bit LOG_SOFTMAX: `table` (the exp table, beta 1), the float32 scales and
    their `ratio`, the output zero point `zp` and the type's range (`lo`, `hi`)."""

    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.unary_operands()
        zp = 127 if y.dtype == I8 else 255
        if self.scale(y) != 16.0 / 256 or self.zero_point(y) != zp:
            raise self.fail(f"{y.dtype} LOG_SOFTMAX needs the output scale 16/256 and zero point "
                            f"{zp}, not {self.scale(y)} and {self.zero_point(y)}")
        self.in_scale = F32(self.scale(x))
        self.out_scale = F32(self.scale(y))
        self.ratio = F32(self.in_scale / self.out_scale)
        self.table = softmax_exp_table(self.in_scale)
        self.zp = zp
        self.lo, self.hi = dtype_range(y.dtype)


__all__ = ["softmax_exp_table", "gen_lut16", "EXP_LUT", "RECIPROCAL_LUT", "SoftmaxBase",
           "QSoftmaxBase", "QSoftmaxInt16Base", "QLogSoftmaxBase"]
