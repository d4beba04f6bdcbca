"""Quantized forms left out of qlut.py, bit-exact with the interpreter:

  RSQRT int8          elementwise.cc RsqrtEvalQuantizedInt8 (scalar, per element): the inverse
                      square root of (x - zp) from GetInvSqrtQuantizedMultiplierExp (fixed-point
                      Newton-Raphson), rescaled twice with MultiplyByQuantizedMultiplier (the
                      reference rounding, halves away from zero) by 1 / (sqrtf(in_scale) *
                      out_scale); x == zp gives 127. Every result depends on the input byte
                      only, so the kernel is a 256-entry table computed at compile time.

Registered for int8 inputs; int16 RSQRT is qlut.QRsqrt (a LUT). Inputs below the zero point fail
when they run, as in the interpreter.
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qfixed
from .....core.quant import qlut_math as qm
from .base import I8, QuantKernel, quantized, register
from .qlut import _NonNegative
from .....core.quant.qmath import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32


def rsqrt_int8(x: np.ndarray, in_scale: float, in_zp: int, out_scale: float,
               out_zp: int) -> np.ndarray:
    """The int8 results for int8 inputs x (int64; results below the zero point are unused)."""
    real = 1.0 / float(F32(qm.sqrtf(F32(in_scale)) * F32(out_scale)))
    mult, shift = (int(a) for a in quantize_multiplier(real))
    k_shift = 20
    value = x - in_zp
    inv, inv_shift = qfixed.inv_sqrt_multiplier_exp(np.maximum(value, 0))
    data = multiply_by_quantized_multiplier(np.ones_like(value), inv, inv_shift + k_shift)
    out = multiply_by_quantized_multiplier(data, mult, shift - k_shift) + out_zp
    out = np.where(value == 0, 127, np.clip(out, -128, 127))
    return out.astype(np.int8)


@register("ElementwiseUnary.RSQRT", dtypes=(I8,), when=quantized)
class QRsqrtInt8(_NonNegative, QuantKernel):
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
