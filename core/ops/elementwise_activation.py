"""ElementwiseActivation (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, TANH, LOGISTIC, HARD_SWISH,
LEAKY_RELU, ELU, GELU): what every backend's kernels share.

`ElementwiseActivationBase`: the float32 form (the sub-types any backend computes). Kernels:
backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py.

`QTanhBase`, `QLogisticBase`: 8-bit TANH and LOGISTIC through TFLite's lookup table
(activations.cc PopulateLookupTable, kGenericOptimized; quant_lut.QLutBase builds it); LOGISTIC
refuses an output scale other than 1/256, as the interpreter does. Kernels:
backends/cpu/ops/quant/qactivation.py, backends/acl_neon/ops/quant_eltwise.py. The other
quantized activations (RELU family, LEAKY_RELU, ELU, GELU, HARD_SWISH, int16 TANH/LOGISTIC) run
on cpu only: backends/cpu/ops/quant/qactivation.py, qhardswish.py, qtanh16.py.
"""
from __future__ import annotations

import numpy as np

from ..quant import qlut_math as qm
from .base import OpKernel
from .quant_base import I8, U8
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


__all__ = ["ACTIVATIONS", "ElementwiseActivationBase", "QTanhBase", "QLogisticBase"]
