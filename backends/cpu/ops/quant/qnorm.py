"""Quantized L2_NORMALIZATION (uint8, int8) as TFLite's l2norm.cc runs it (reference_ops /
reference_integer_ops L2Normalization, scalar code):

  acc = sum over the last axis of (q - zp)^2 (int32);
  M, shift = GetInvSqrtQuantizedMultiplierExp(acc, reverse_shift=-1): 1/sqrt(acc) by five
             Newton-Raphson steps in gemmlowp fixed point (3 integer bits), times sqrt(2)/2;
  uint8: out = 128 + MultiplyByQuantizedMultiplierSmallerThanOneExp(128 * (q - zp), M, shift),
         clamped to [0, 255];
  int8:  out = MultiplyByQuantizedMultiplier(q - zp, M, shift + 7), clamped to [-128, 127].
TFLite's Prepare requires output scale 1/128 and zero point 128 (uint8) / 0 (int8), and no fused
activation; those are refused the same way (core/ops/norm.py). Everything is vectorized over the
rows (GetInvSqrtQuantizedMultiplierExp: qfixed). Float form: backends/cpu/ops/norm.py.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.norm import QL2NormalizationBase
from .....core.quant import qmath
from .....core.quant.qfixed import inv_sqrt_multiplier_exp
from .base import U8, quantized, register

I64 = np.int64


@register("L2Normalization", when=quantized)
class QL2NormalizationLayer(QL2NormalizationBase):
    def run(self) -> None:
        x = self.inputs[0].buffer
        d = x.astype(I64) - self.zp
        acc = qmath.wrap_int32(np.sum(d * d, axis=-1, keepdims=True))
        m, s = inv_sqrt_multiplier_exp(acc)
        if x.dtype == U8:
            r = qmath.multiply_by_quantized_multiplier_smaller_than_one(128 * d, m, s)
            out = np.clip(128 + r, 0, 255)
        else:
            out = np.clip(qmath.multiply_by_quantized_multiplier(d, m, s + 7), -128, 127)
        np.copyto(self.outputs[0].buffer, out, casting="unsafe")
