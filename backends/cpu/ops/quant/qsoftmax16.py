"""Quantized SOFTMAX int16 -> int16, bit-exact with the interpreter's reference_ops::SoftmaxInt16
(activations.cc SoftmaxPrepare, int16 branch). The tables (gen_lut in double of exp over
[-10, 0] and of 1 / (1 + x) over [0, 1]), the multiplier and the checks: core/ops/softmax.py.
Float form: backends/cpu/ops/softmax.py; 8-bit SOFTMAX: qsoftmax.py.

  per row: d = x - max; e = lut(clamp(MultiplyByQuantizedMultiplier(d) + 32767)) (Q0.15),
          sum in int32, h = clz(sum), s = ((sum << (h - 1)) + 2^13) >> 14,
          r = lut_1/(1+x)(clamp(s - 98304)), y = clamp((e * r + 2^(30 - h)) >> (31 - h), 0, 32767)
where MultiplyByQuantizedMultiplier is the reference (scalar) rescale and the lookups
interpolate as LUTLookup.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.softmax import EXP_LUT, RECIPROCAL_LUT, QSoftmaxInt16Base
from .....core.quant.qfixed import bit_length
from .....core.quant.qlut_math import lookup16
from .....core.quant.qmath import multiply_by_quantized_multiplier
from .base import I16, quantized, register


@register("Softmax", dtypes=(I16,), when=quantized)
class QSoftmaxInt16Layer(QSoftmaxInt16Base):
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
