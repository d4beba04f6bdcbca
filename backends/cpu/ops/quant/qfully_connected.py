"""Quantized FULLY_CONNECTED (int8, uint8, int16x8) with the interpreter's integer results. The
checks, multipliers and clamps are core/ops/fully_connected.py's (QFullyConnectedBase), with
the TFLite kernels each form follows; here: the exact integer GEMM (core/quant/qgemm) and the
rescale, by the vector rounding or, for the int16 reference form, in double.

Float form: ../fully_connected.py; hybrid form: ../hybrid_fully_connected.py.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.fully_connected import QFullyConnectedBase
from .....core.quant import qmath
from .....core.quant.qgemm import Operand, dtype_bound, exact_matmul
from .base import quantized, register


def reference_double_rescale(acc: np.ndarray, effective: np.ndarray) -> np.ndarray:
    """static_cast<int32>(round(double(acc) * effective)); out of int32 range -> INT32_MIN,
    as x86's conversion gives."""
    r = qmath.round_half_away(acc.astype(np.float64) * effective)
    ok = np.abs(r) < 2.0 ** 31
    return np.where(ok, r, qmath.INT32_MIN).astype(np.int64)


@register("FullyConnected", when=quantized)
class QFullyConnectedLayer(QFullyConnectedBase):
    def validate(self) -> None:
        super().validate()
        x, w = self.inputs[0], self.inputs[1]
        self.depth = int(w.shape[1])
        self.x_bound = dtype_bound(x.dtype, self.x_zp)
        self.wop = Operand(w.buffer.T, self.w_zp) if w.is_constant else None

    def run(self) -> None:
        x, y = self.buf(0), self.out
        wop = self.wop if self.wop is not None else Operand(self.buf(1).T, self.w_zp)
        acc = exact_matmul(x.reshape(-1, self.depth), wop, self.x_zp, a_bound=self.x_bound)
        bias = self.buf(2)
        if bias is not None:
            acc += bias.reshape(-1)
        if self.reference:
            r = reference_double_rescale(acc, self.effective)
        else:
            r = qmath.multiply_by_quantized_multiplier_vector(qmath.wrap_int32(acc), self.m,
                                                              self.s)
        qmath.clamp_cast(r + self.y_zp, self.lo, self.hi, y.dtype, out=y.reshape(acc.shape))
