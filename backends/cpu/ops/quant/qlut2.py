"""Quantized forms left out of qlut.py, bit-exact with the interpreter:

  RSQRT int8          elementwise.cc RsqrtEvalQuantizedInt8 (scalar, per element): the inverse
                      square root of (x - zp) from GetInvSqrtQuantizedMultiplierExp (fixed-point
                      Newton-Raphson), rescaled twice with MultiplyByQuantizedMultiplier (the
                      reference rounding, halves away from zero) by 1 / (sqrtf(in_scale) *
                      out_scale); x == zp gives 127. Every result depends on the input byte
                      only, so the kernel is a 256-entry table computed at compile time.

The registered RSQRT class dispatches by dtype: int16 runs qlut.QRsqrt (a LUT). Inputs below the
zero point fail when they run, as in the interpreter.
"""
from __future__ import annotations

import numpy as np

from . import qfixed
from . import qlut_math as qm
from .base import I8, I16, QuantKernel, qregister
from .qdispatch import ByDtype
from .qlut import QRsqrt, _NonNegative, _table_by_byte
from .qmath import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32


def rsqrt_int8_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """The int8 results for the inputs -128..127 (entries below the zero point are unused)."""
    real = 1.0 / float(F32(qm.sqrtf(F32(in_scale)) * F32(out_scale)))
    mult, shift = (int(a) for a in quantize_multiplier(real))
    k_shift = 20
    value = np.arange(-128, 128, dtype=np.int64) - in_zp
    inv, inv_shift = qfixed.inv_sqrt_multiplier_exp(np.maximum(value, 0))
    data = multiply_by_quantized_multiplier(np.ones_like(value), inv, inv_shift + k_shift)
    out = multiply_by_quantized_multiplier(data, mult, shift - k_shift) + out_zp
    out = np.where(value == 0, 127, np.clip(out, -128, 127))
    return out.astype(np.int8)


class QRsqrtInt8(_NonNegative, QuantKernel):
    dtypes = frozenset({I8})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"RSQRT: input {x.dtype} and output {y.dtype} differ")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail("RSQRT is quantized per tensor only")
        self.x_zp = self.zero_point(x)
        table = rsqrt_int8_table(self.scale(x), self.x_zp, self.scale(y), self.zero_point(y))
        self.table = _table_by_byte(table, np.int8)

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        self.check_input(x)
        np.take(self.table, x.view(np.uint8), out=out)


@qregister("ElementwiseUnary.RSQRT")
class QRsqrtAny(ByDtype):
    impls = {I8: QRsqrtInt8, I16: QRsqrt}
