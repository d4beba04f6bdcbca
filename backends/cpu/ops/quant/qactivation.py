"""Quantized ElementwiseActivation on cpu: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU
with the interpreter's integer arithmetic, and TANH, LOGISTIC (int8, uint8), ELU, GELU through
TFLite's lookup tables. HARD_SWISH: qhardswish.py; int16 TANH and LOGISTIC: qtanh16.py. Float
form: backends/cpu/ops/elementwise.py (shared with the other backends:
core/ops/elementwise_activation.py, which also holds the 8-bit TANH / LOGISTIC tables).

RELU family and LEAKY_RELU, probed exhaustively over every 8-bit value and all 65536 int16
values; lengths with and without vector tails: no op here has a vector/scalar split, every
element rounds the reference way, halves away from zero, unless said otherwise. They are
precomputed into a table over every input value (qtable.UnaryTableKernel).

RELU family (activations.cc ReluPrepare / QuantizedReluX): M = QuantizeMultiplier(float32
  s_in / s_out); y = clamp(zp_out + MultiplyByQuantizedMultiplier(x - zp_in, M),
  zp_out + roundf(lo / s_out), zp_out + roundf(hi / s_out)) within the dtype. int8/uint8 all four;
  int16 RELU and RELU6 only, with zero points 0 (the interpreter refuses the rest).
LEAKY_RELU (LeakyReluPrepare / QuantizeLeakyRelu): M_id = QM(float32 s_in / s_out), M_alpha =
  QM(float32 s_in * alpha / s_out); v = x - zp_in; y = zp_out + (v >= 0 ? MBQM(v, M_id) :
  MBQM(v, M_alpha)), clamped to the dtype. For 8-bit inputs with a negative alpha multiplier the
  interpreter computes -MBQM(v, -M_alpha) (ties of the high multiply go toward zero, probed);
  int16 (zero points 0) uses the negative multiplier as it is.

Through TFLite's lookup tables (core/quant/qlut_math.py, core/ops/quant_lut.py):
  LOGISTIC, TANH (int8, uint8)        activations.cc PopulateLookupTable, kGenericOptimized
  ELU (int8)                          activations.cc, LUT of expm1 for x < 0
  GELU (int8, uint8, int16)           gelu.cc, LUT (int16: LUTPopulate<int16_t> + LUTLookup),
                                      exact erf form or the tanh approximation
Output parameters the interpreter insists on are refused here in the same terms (LOGISTIC
8-bit: output scale 1/256). Not here: uint8 ELU and int16 ELU (the interpreter refuses those
types).
"""
from __future__ import annotations

import numpy as np

from .....core.ops.elementwise_activation import QLogisticBase, QTanhBase
from .....core.quant import qlut_math as qm
from .....core.quant import qmath
from .....core.quant.qmath import multiply_by_quantized_multiplier as mbqm
from .....core.quant.qmath import quantize_multiplier_int as qmult
from .base import I8, I16, U8, quantized, register
from .qtable import LutKernel, UnaryTableKernel

F32 = np.float32
RELUS = ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1")
INT16_RELUS = frozenset({"RELU", "RELU6"})


@register(*(f"ElementwiseActivation.{k}" for k in RELUS),
          when=quantized)
class QReluLayer(UnaryTableKernel):
    """RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1 with input->output requantization."""

    @classmethod
    def supports(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if x.dtype == I16 and op.subtype not in INT16_RELUS:
            return False, f"the interpreter has no int16 {op.subtype}"
        return super().supports(op, graph)

    def configure_params(self) -> None:
        self.m, self.s = qmult(F32(self.xs) / F32(self.ys))
        self.lo, self.hi = qmath.activation_range(self.op.subtype, self.ys, self.yz,
                                                  self.inputs[0].dtype)

    def compute(self, v):
        return np.clip(mbqm(v - self.xz, self.m, self.s) + self.yz, self.lo, self.hi)


@register("ElementwiseActivation.LEAKY_RELU", when=quantized)
class QLeakyReluLayer(UnaryTableKernel):
    """LEAKY_RELU with an identity and an alpha multiplier."""

    def configure_params(self) -> None:
        alpha = F32(self.op.params.get("alpha", 0.2))
        self.m_id, self.s_id = qmult(F32(self.xs) / F32(self.ys))
        self.m_al, self.s_al = qmult(F32(F32(self.xs) * alpha) / F32(self.ys))

    def compute(self, v):
        v = v - self.xz
        if self.m_al < 0 and self.inputs[0].dtype != I16:
            neg = -mbqm(v, -self.m_al, self.s_al)
        else:
            neg = mbqm(v, self.m_al, self.s_al)
        return np.where(v >= 0, mbqm(v, self.m_id, self.s_id), neg) + self.yz


@register("ElementwiseActivation.TANH", dtypes=(I8, U8), when=quantized)
class QTanhLayer(LutKernel, QTanhBase):
    """8-bit TANH: the lookup of QTanhBase's table."""


@register("ElementwiseActivation.LOGISTIC", dtypes=(I8, U8), when=quantized)
class QLogisticLayer(LutKernel, QLogisticBase):
    """8-bit LOGISTIC: the lookup of QLogisticBase's table."""


@register("ElementwiseActivation.ELU", when=quantized)
class QEluLayer(LutKernel):
    dtypes = frozenset({I8})

    def transform(self, *params):
        return qm.elu


@register("ElementwiseActivation.GELU", when=quantized)
class QGeluLayer(LutKernel):
    dtypes = frozenset({I8, U8, I16})
    int16_zero_points = False

    def transform(self, *params):
        return qm.gelu_approximate if self.op.params.get("approximate", False) else qm.gelu
