"""Bases of the cpu's quantized unary kernels that run as one table lookup:

`UnaryTableKernel`: the op's exact integer arithmetic (`compute`) evaluated once per input value
    in validate() (qlut_math.value_table); RELU family, LEAKY_RELU (qactivation.py), ABS
    (qunary.py).
`LutKernel`: the lookup of the table of TFLite's LUT kernels that core/ops/quant_lut.py's
    QLutBase builds (8-bit: one gather; int16: lookup16's interpolation); TANH, LOGISTIC, ELU,
    GELU (qactivation.py), EXP, LOG, int16 RSQRT (qunary.py).
"""
from __future__ import annotations

import numpy as np

from .....core.ops.quant_lut import QLutBase
from .....core.quant import qlut_math as qm
from .....core.quant import qmath
from .base import I16, QuantOpKernel


class UnaryTableKernel(QuantOpKernel):
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
        self.table = qm.value_table(x.dtype, lambda v: np.clip(self.compute(v), lo, hi))

    def run(self) -> None:
        qm.lookup(self.table, self.inputs[0].buffer, out=self.outputs[0].buffer)


class LutKernel(QLutBase):
    """A quantized unary op run through the lookup table QLutBase built in validate()."""

    def check_input(self, x: np.ndarray) -> None:
        """Runtime checks of the input values (none by default)."""

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        self.check_input(x)
        if x.dtype == I16:
            np.copyto(out, np.clip(qm.lookup16(x, self.table), -32768, 32767), casting="unsafe")
        else:
            qm.lookup(self.table, x, out=out)


__all__ = ["UnaryTableKernel", "LutKernel"]
