"""ElementwiseActivation (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, TANH, LOGISTIC, HARD_SWISH,
LEAKY_RELU, ELU, GELU): what every backend's kernels share.

`ElementwiseActivationBase`: the float32 form (the sub-types any backend computes). Kernels:
backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py.

`QTanhBase`, `QLogisticBase`: 8-bit TANH and LOGISTIC through TFLite's lookup table
(activations.cc PopulateLookupTable, kGenericOptimized; quant_lut.QLutBase builds it); LOGISTIC
refuses an output scale other than 1/256, as the interpreter does. Kernels:
backends/cpu/ops/quant/qactivation.py, backends/acl_neon/ops/quant_eltwise.py.

`QTanh16Base`, `QLogistic16Base`: int16 TANH and LOGISTIC at any input scale, bit-exact with
the interpreter (activations.cc TanhPrepare / SigmoidPrepare, int16 branch). Prepare requires
zero points 0 and an output scale of 2^-15 (CheckedLog2; LOGISTIC: exactly 1/32768). An input
scale that is a power of two with input_left_shift = 12 + log2(scale) of 0 (LOGISTIC) or 0 or 1
(TANH) takes the fixed-point path: gemmlowp's logistic / tanh of the raw value as a
FixedPoint<int16, 3> (times 2, saturating, for shift 1) (core/quant/qfixed.py); every other
scale the table path: reference_integer_ops::Logistic / Tanh with an input multiplier and TFLite's
256-entry sigmoid table (core/quant/qsigmoid16.py). Either way the result depends on the input
value only: validate() leaves `table`, the 65536 results ordered for qlut_math.lookup. Kernel:
backends/cpu/ops/quant/qtanh16.py.

The other quantized activations (RELU family, LEAKY_RELU, ELU, GELU, HARD_SWISH) run on cpu
only: backends/cpu/ops/quant/qactivation.py, qhardswish.py.
"""
from __future__ import annotations

import numpy as np

from ..quant import qlut_math as qm
from ..quant import qsigmoid16
from ..quant.qfixed import pot16, sigmoid16, tanh16
from .base import OpKernel
from .quant_base import I8, I16, U8, QuantOpKernel
from .quant_lut import QLutBase

ACTIVATIONS = frozenset({"RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LOGISTIC",
                         "HARD_SWISH", "LEAKY_RELU", "ELU", "GELU"})


class ElementwiseActivationBase(OpKernel):
    """A float32 activation among ACTIVATIONS (`alpha`: LEAKY_RELU's slope, 0.2 by default;
    `approximate`: GELU's tanh form)."""

    @classmethod
    def supports(cls, op, graph):
        if op.subtype not in ACTIVATIONS:
            return False, f"{cls.backend_id} has no {op.subtype} kernel yet"
        return super().supports(op, graph)


class QTanhBase(QLutBase):
    """8-bit TANH: the table of tanhf."""

    dtypes = frozenset({I8, U8})

    def transform(self, *params):
        return qm.tanhf


class QLogisticBase(QLutBase):
    """8-bit LOGISTIC: the table of the logistic function; the output scale must be 1/256."""

    dtypes = frozenset({I8, U8})

    def check_output(self, x, y) -> None:
        if np.float64(self.scale(y)) != 1.0 / 256:
            raise self.fail(f"quantized LOGISTIC needs the output scale 1/256 (usually with "
                            f"zero point {-128 if y.dtype == I8 else 0}), not {self.scale(y)}")

    def transform(self, *params):
        return qm.logistic


class QSigmoid16Base(QuantOpKernel):
    """int16 TANH / LOGISTIC: the checks of Prepare and the table of results (`table`).
    `max_left_shift`: the largest input_left_shift of the fixed-point path; `fixed_point(raw)`:
    gemmlowp's function of FixedPoint<int16, 3> raw values; `table_path(x, multiplier, shift)`:
    the reference kernel's."""

    dtypes = frozenset({I16})
    max_left_shift = 0
    exact_output_scale = False       # LOGISTIC: output scale == 1/32768, not just CheckedLog2

    @staticmethod
    def fixed_point(raw):
        raise NotImplementedError

    @staticmethod
    def table_path(x, multiplier: int, left_shift: int):
        raise NotImplementedError

    def validate(self) -> None:
        x, y = self.unary_operands()
        name = self.op.subtype
        if self.zero_point(x) or self.zero_point(y):
            raise self.fail(f"int16 {name} needs zero points 0 on input and output (input "
                            f"{self.zero_point(x)}, output {self.zero_point(y)})")
        pot, log2 = qm.checked_log2(self.scale(y))
        if not pot or log2 != -15 or (self.exact_output_scale
                                      and np.float64(self.scale(y)) != 1.0 / 32768):
            raise self.fail(f"int16 {name} needs the output scale 1/32768, not {self.scale(y)}")
        s_in = self.scale(x)
        if not (np.isfinite(s_in) and s_in > 0):
            raise self.fail(f"int16 {name} needs a positive finite input scale, not {s_in}")
        pot, log2 = qm.checked_log2(s_in)
        shift = 12 + log2
        if pot and 0 <= shift <= self.max_left_shift:
            self.path = "fixed-point"
            self.table = qm.value_table(I16, lambda v: self.fixed_point(pot16(v, shift)))
            return
        mult, shift = qsigmoid16.table_path_params(s_in)
        if not 0 < mult < 1 << 31:
            raise self.fail(f"int16 {name}: input scale {s_in} is outside what TFLite's table "
                            f"path can rescale (its input multiplier {mult} does not fit "
                            f"1..2^31 - 1; scales from about 4e-14 to 1.7e5 do)")
        self.path = "table"
        self.table = qm.value_table(I16, lambda v: self.table_path(v, mult, shift))


class QTanh16Base(QSigmoid16Base):
    """int16 TANH: the fixed-point path for input scales 2^-12 and 2^-11."""

    max_left_shift = 1
    fixed_point = staticmethod(lambda raw: tanh16(raw, 3))
    table_path = staticmethod(qsigmoid16.tanh16)


class QLogistic16Base(QSigmoid16Base):
    """int16 LOGISTIC: the fixed-point path for the input scale 2^-12; the output scale must be
    exactly 1/32768."""

    exact_output_scale = True
    fixed_point = staticmethod(sigmoid16)
    table_path = staticmethod(qsigmoid16.logistic16)


__all__ = ["ACTIVATIONS", "ElementwiseActivationBase", "QTanhBase", "QLogisticBase",
           "QTanh16Base", "QLogistic16Base"]
