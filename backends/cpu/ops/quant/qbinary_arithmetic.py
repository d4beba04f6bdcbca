"""Quantized BinaryArithmetic on cpu: ADD, SUB, MUL (int8, uint8, int16) and DIV (uint8), with
the interpreter's integer results.

ADD/SUB and MUL: the arithmetic, its multipliers and its 8-bit pair tables are
core/ops/binary_arithmetic.py's (QAddSubBase, QMulBase: shared with acl_neon and acl_cl); a run
is their gather from the tables (or, for int16, the arithmetic itself).

DIV, probed bit-exact on every value pair (tests/ops/test_q_div.py): TFLite's builtin DIV
supports uint8 only among the quantized types (div.cc: int8 / int16 are refused). Prepare:
real = s1 / (s2 * s_out) evaluated in float32 (the scales are floats: the product and the
quotient round to float32 before the conversion to double; the double form differs on some
pairs), QuantizeMultiplier -> (M, shift). Eval checks that no divisor equals its zero point (a
runtime error there: ExecutionError here) and runs reference_ops::DivElementwise
(BroadcastDivSlow when broadcasting: the same per-element arithmetic), in int32:
    a1 = q1 - zp1, a2 = q2 - zp2, both negated when a2 < 0
    inv, rs = GetReciprocal(a2, 31)              (Newton-Raphson in gemmlowp fixed point)
    h = CountLeadingSignBits(a1)
    quotient = SaturatingRoundingDoublingHighMul(a1 << h, inv)
    out = RoundingDivideByPOT(SRDHM(quotient, M), -(shift - rs - h)) + zp_out, clamped to the
          activation range;
the final exponent exceeds 31 for small dividends, where the x86 build's shift count wraps mod
32 (qdiv_math.rounding_divide_by_pot_x86): modelled, as the probes confirm. The result depends
only on the pair of input bytes, so it is tabulated once (qpairtable) and a run is one gather.

Float form: backends/cpu/ops/elementwise.py.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.binary_arithmetic import QAddSubBase, QMulBase
from .....core.quant import qdiv_math, qmath, qpairtable
from .....errors import ExecutionError
from .base import U8, QuantOpKernel, quantized, register

I64 = np.int64


@register("BinaryArithmetic", when=quantized)
class QAddSubLayer(QAddSubBase):
    """ADD / SUB of two quantized tensors (run: the pair tables' gather, qpairtable)."""


@register("BinaryArithmetic.MUL", when=quantized)
class QMulLayer(QMulBase):
    """MUL of two quantized tensors (run: the pair tables' gather, qpairtable)."""


@register("BinaryArithmetic.DIV", when=quantized)
class QDivLayer(qpairtable.TabulatedBinary, QuantOpKernel):
    """DIV of two uint8 tensors (see the module docstring for the arithmetic)."""

    dtypes = frozenset({U8})

    @classmethod
    def supports(cls, op, graph):
        a, b = (graph.operands[i] for i in op.inputs[:2])
        y = graph.operands[op.outputs[0]]
        if not (a.dtype == b.dtype == y.dtype == U8) or b.quant is None or y.quant is None:
            return False, (f"quantized DIV needs uint8 inputs and output (the interpreter has "
                           f"no other quantized DIV), got {a.type_name}/{b.type_name}/"
                           f"{y.type_name}")
        if any(t.quant.per_channel for t in (a, b, y)):
            return False, "quantized DIV is per-tensor only"
        return super().supports(op, graph)

    def validate(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        self.lo, self.hi = self.qrange(y, self.op.params.get("fused_activation_function"))
        self.zp1, self.zp2, self.zpo = self.zero_point(a), self.zero_point(b), self.zero_point(y)
        s1, s2, so = (np.float32(self.scale(t)) for t in (a, b, y))
        real = np.float64(s1 / (s2 * so))          # float32 arithmetic, as div.cc Prepare
        if not np.isfinite(real) or real <= 0:
            raise self.fail(f"quantized DIV: scales {s1}, {s2}, {so} give the multiplier "
                            f"{real}")
        self.m, self.shift = (int(v) for v in qmath.quantize_multiplier(real))
        if self.shift > 22:
            raise self.fail(f"quantized DIV: multiplier {real:g} above 2^22 is not supported")
        self.tabulate(U8, False)

    def _compute(self, a: np.ndarray, b: np.ndarray, kinds, out: np.ndarray) -> None:
        """The exact arithmetic on raw inputs a, b into out (kinds: always None, no vector loop)."""
        a1 = np.asarray(a, I64) - self.zp1
        a2 = np.asarray(b, I64) - self.zp2
        a1, a2 = np.broadcast_arrays(np.where(a2 < 0, -a1, a1), np.abs(a2))
        inv, rshift = qdiv_math.reciprocal(a2)
        head = qdiv_math.leading_sign_bits(a1)
        quotient = qmath.multiply_by_quantized_multiplier_greater_than_one(a1, inv, head)
        exponent = -(self.shift - rshift - head)
        r = qdiv_math.rounding_divide_by_pot_x86(qdiv_math.srdhm(quotient, self.m), exponent)
        qmath.clamp_cast(np.broadcast_to(r + self.zpo, out.shape), self.lo, self.hi, out.dtype,
                         out=out)

    def run(self) -> None:
        b = self.inputs[1].buffer
        if b.size and np.any(b == self.zp2):
            raise ExecutionError(f"quantized DIV: a divisor equals its zero point {self.zp2} "
                                 f"(division by zero)")
        super().run()
