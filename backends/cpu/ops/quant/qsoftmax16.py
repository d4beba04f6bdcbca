"""Quantized SOFTMAX int16 -> int16, bit-exact with the interpreter's reference_ops::SoftmaxInt16
(activations.cc SoftmaxPrepare, int16 branch):

  tables: gen_lut in double (512 steps + 1, each sample biased by half the interpolation error
          at the step's midpoint, values * 32768 rounded half away from zero) of exp over
          [-10, 0] and of 1 / (1 + x) over [0, 1];
  multiplier: QuantizeMultiplier(float32(in_scale * beta) / (10 / 65535)), so that input
          differences [-65535, 0] map to [-10, 0];
  per row: d = x - max; e = lut(clamp(MultiplyByQuantizedMultiplier(d) + 32767)) (Q0.15),
          sum in int32, h = clz(sum), s = ((sum << (h - 1)) + 2^13) >> 14,
          r = lut_1/(1+x)(clamp(s - 98304)), y = clamp((e * r + 2^(30 - h)) >> (31 - h), 0, 32767)
where MultiplyByQuantizedMultiplier is the reference (scalar) rescale and the lookups
interpolate as LUTLookup. The interpreter requires zero points 0; output scale 1/32768 is what the
arithmetic produces (other output scales are refused here, so that results mean what they say).
"""
from __future__ import annotations

import math

import numpy as np

from .base import I16, QuantKernel, quantized, register
from .....core.quant.qfixed import bit_length
from .....core.quant.qlut_math import lookup16
from .....core.quant.qmath import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32


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


@register("Softmax", dtypes=(I16,), when=quantized)
class QSoftmaxInt16(QuantKernel):
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

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        if x.size == 0:
            return
        x = x.astype(np.int64)
        diff = x - x.max(axis=-1, keepdims=True)
        scaled = multiply_by_quantized_multiplier(diff, self.mult, self.shift) + 32767
        e = lookup16(np.clip(scaled, -32768, 32767), EXP_LUT)
        total = e.sum(axis=-1, keepdims=True)
        headroom = 32 - bit_length(total)                      # CountLeadingZeros
        shifted = ((total << (headroom - 1)) + (1 << 13)) >> 14
        recip = lookup16(np.clip(shifted - ((1 << 15) + (1 << 16)), -32768, 32767),
                         RECIPROCAL_LUT)
        right = 31 - headroom
        result = (e * recip + (np.int64(1) << (right - 1))) >> right
        np.copyto(out, np.clip(result, 0, 32767), casting="unsafe")
