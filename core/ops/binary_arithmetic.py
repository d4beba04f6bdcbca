"""BinaryArithmetic (ADD, SUB, MUL, DIV): what every backend's kernels share.

`BinaryArithmeticBase`: the float and integer form (the dtypes of each sub-type, the checks of
binary.BinaryBase). Kernels: backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py.

`QAddSubBase`, `QMulBase`: quantized ADD/SUB and MUL (int8, uint8, int16) with the
interpreter's integer arithmetic: the multipliers of their Prepare, the exact per-element
arithmetic (`_compute`), and, for 8-bit inputs, that arithmetic tabulated over every pair of
input values per loop kind of TFLite's kernels (core/quant/qpairtable.py; `run` gathers from
the tables, or computes for int16). The loop kinds of the output's elements follow from the
shapes (`prepare`). Kernels: backends/cpu/ops/quant/qbinary_arithmetic.py (with quantized DIV),
backends/acl_neon/ops/quant_eltwise.py, backends/acl_cl/ops/quant_binary.py.

ADD / SUB, general path (add.cc / sub.cc Prepare; int8/uint8 with left_shift 20, int16 with 15
when the int16 scales are not all powers of two or `pot_scale_int16` is off):
    twice_max = 2 * max(s1, s2)                               (float32 scales, double math)
    M1, M2 = QuantizeMultiplierSmallerThanOneExp(s1 / twice_max, s2 / twice_max)
    Mo = QuantizeMultiplierSmallerThanOneExp(twice_max / (2^left_shift * s_out))
    x_i = MulByQuantMulSmallerThanOne((q_i - zp_i) << left_shift, M_i)
    out = MulByQuantMulSmallerThanOne(x1 +- x2, Mo) + zp_out, clamped to the activation range.
Rounding, as probed on the interpreter (tests/ops/test_q_binary.py): SUB (int8/uint8) and
int16 run the reference kernels (halves away from zero throughout). ADD int8/uint8 runs TFLite's
optimized NEON kernels (optimized_ops.h AddElementwise/AddScalarBroadcast for uint8, 8 lanes;
optimized/integer_ops/add.h AddElementwiseInt8 with 16 lanes and AddScalarBroadcast with 8 lanes
for int8): their vector lanes use vqrdmulh (halves rounded up) and
  - uint8 loops and the int8 scalar broadcast: vqrdmulh(x << 20, M_i) >> -shift_i (toward -inf),
  - int8 elementwise: vqrdmulh(x << (20 + shift_i), M_i) (the shift folded in before),
then vqrdmulh + gemmlowp's rounding divide for the output, narrowed to int16 without saturation
before the output offset is added (qbinary_math.vector_input / vector_output). Loop tails (n %
width of each contiguous chunk) and the generic (non-fivefold) broadcast stay scalar
(qbinary_math.loop_kinds).
int16 "POT" path (all zero points 0, all scales powers of two, pot_scale_int16 on): the input
with the output's scale passes through, the other is divided by 2^k with rounding away from zero,
and the two are added/subtracted with int16 saturation, then clamped.

MUL (probed bit-exact: tests/ops/test_q_mul.py).
int8 / uint8 (mul.cc Prepare: real = s1 * s2 / s_out in double from the float32 scales,
QuantizeMultiplier -> M, shift, which may be positive):
    p = (q1 - zp1) * (q2 - zp2)
    scalar loops (tails, generic broadcast): MultiplyByQuantizedMultiplier(p, M, shift) + zp_out
    vector lanes of the optimized kernels (optimized/integer_ops/mul.h for int8: 16 lanes in the
    elementwise and the scalar-broadcast loop; optimized_ops.h for uint8: 8 lanes):
        RoundingDivideByPOT(vqrdmulh(p << max(shift, 0), M), max(-shift, 0)) (vqrdmulh rounds
        halves up), narrowed to int16 with saturation (vqmovn; uint8's scalar-broadcast loop
        wraps instead, vmovn), the output offset added in int16 (wrapping), then saturated to
        the 8-bit type (qbinary_math.mul_vector_lanes)
    then clamped to the fused activation's range. Which element runs where follows
    qbinary_math.loop_kinds.
int16 -> int16 (zero points must be 0, as the interpreter checks): the reference kernel,
    MultiplyByQuantizedMultiplier(q1 * q2, M, shift) (32-bit, the left shift wrapping), clamped.
int16 -> int8 / uint8: TFLite's legacy fixed-point path, which ignores the scales and the input
    zero points: RoundingDivideByPOT(SaturatingRoundingDoublingHighMul<int16>(q1, q2), 8)
    + zp_out, clamped. Same shapes only (the interpreter aborts on a broadcast): refused.
"""
from __future__ import annotations

import numpy as np

from ..quant import qmath, qpairtable
from ..quant.qbinary_math import (ELEMENTWISE, SCALAR_BROADCAST, common_scale, loop_kinds,
                                  mul_vector_lanes, rescale_below_one, vector_input,
                                  vector_output)
from ..quant.qfixed import srdhm16
from ..quant.qlut_math import checked_log2
from .binary import BINARY_DTYPES, ORDERED, BinaryBase
from .quant_base import I8, I16, U8, QuantOpKernel

I64 = np.int64
# (op, dtype) -> (elementwise loop lanes, whether it folds the input shift in before vqrdmulh,
# scalar-broadcast loop lanes) of the optimized ADD kernels; ops not listed run reference kernels
VECTOR_LOOPS = {("ADD", np.dtype(np.uint8)): (8, False, 8),
                ("ADD", np.dtype(np.int8)): (16, True, 8)}
# MUL: input dtype -> (elementwise lanes, scalar-broadcast lanes) of the optimized kernels, and
# per loop (elementwise, scalar broadcast) whether its int32 -> int16 narrowing saturates
VECTOR_LANES = {I8: (16, 16), U8: (8, 8)}
NARROW_SATURATES = {I8: (True, True), U8: (True, False)}


class BinaryArithmeticBase(BinaryBase):
    """ADD / SUB / MUL / DIV of unquantized tensors (the dtypes per sub-type: BINARY_DTYPES)."""

    dtypes = ORDERED
    subtype_dtypes = BINARY_DTYPES


class QAddSubBase(qpairtable.TabulatedBinary, QuantOpKernel):
    """ADD / SUB of two quantized tensors (see the module docstring for the arithmetic)."""

    @classmethod
    def supports(cls, op, graph):
        if op.subtype not in ("ADD", "SUB"):
            return False, f"{cls.backend_id} has no quantized {op.subtype} kernel"
        a, b = (graph.operands[i] for i in op.inputs[:2])
        if a.dtype != b.dtype or b.quant is None:
            return False, f"quantized {op.subtype} needs two inputs of the same quantized type"
        if a.quant.per_channel or b.quant.per_channel:
            return False, f"quantized {op.subtype} is per-tensor only"
        return super().supports(op, graph)

    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        y = self.outputs[0]
        if y.dtype != a.dtype:
            raise self.fail(f"output dtype {y.dtype} differs from the inputs' {a.dtype}")
        self.sub = self.op.subtype == "SUB"
        act = self.op.params.get("fused_activation_function")
        self.lo, self.hi = self.qrange(y, act)
        s1, s2, so = self.scale(a), self.scale(b), self.scale(y)
        self.zp1, self.zp2, self.zpo = self.zero_point(a), self.zero_point(b), self.zero_point(y)
        self.pot = False
        if a.dtype == I16:
            if not self.zp1 == self.zp2 == self.zpo == 0:
                raise self.fail(f"int16 {self.op.subtype} needs zero points 0 (as TFLite)")
            pots = [checked_log2(s) for s in (s1, s2, so)]
            self.pot = (bool(self.op.params.get("pot_scale_int16", True))
                        and all(p for p, _ in pots))
            if self.pot:
                self.shift1 = pots[0][1] - pots[2][1]
                self.shift2 = pots[1][1] - pots[2][1]
                if not (self.shift1 == 0 or self.shift2 == 0) or self.shift1 > 0 \
                        or self.shift2 > 0:
                    raise self.fail("int16 power-of-two ADD/SUB shifts only one input down")
                return
        self.left_shift = 15 if a.dtype == I16 else 20
        twice_max, (self.m1, self.e1), (self.m2, self.e2) = common_scale(s1, s2)
        self.mo, self.eo = (int(v) for v in qmath.quantize_multiplier(
            twice_max / (float(1 << self.left_shift) * so)))
        self.vec_flags = VECTOR_LOOPS.get((self.op.subtype, a.dtype))
        self.tabulate(a.dtype, bool(self.vec_flags))     # 8-bit: the arithmetic, tabulated

    def prepare(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        kinds = None
        if not self.pot and self.vec_flags is not None:
            ew_width, _, sb_width = self.vec_flags
            kinds = loop_kinds(a.shape, b.shape, y.shape, ew_width, sb_width)
        self.set_kinds(kinds)

    def _compute(self, a: np.ndarray, b: np.ndarray, kinds, out: np.ndarray) -> None:
        """The exact arithmetic on raw inputs a, b into out (loop kinds per element or None)."""
        a, b = a.astype(I64), b.astype(I64)
        if self.pot:
            if self.shift1 == 0:
                b = qmath.rounding_divide_by_pot(b, -self.shift2)
            else:
                a = qmath.rounding_divide_by_pot(a, -self.shift1)
            r = np.clip(a - b if self.sub else a + b, -32768, 32767)
            qmath.clamp_cast(r, self.lo, self.hi, out.dtype, out=out)
            return
        a, b = a - self.zp1, b - self.zp2
        x1 = rescale_below_one(a << self.left_shift, self.m1, self.e1)
        x2 = rescale_below_one(b << self.left_shift, self.m2, self.e2)
        raw = x1 - x2 if self.sub else x1 + x2
        r = np.broadcast_to(rescale_below_one(raw, self.mo, self.eo) + self.zpo, out.shape)
        if kinds is not None:
            r = r.copy()
            for kind in (ELEMENTWISE, SCALAR_BROADCAST):
                sel = kinds == kind
                if sel.any():
                    r[sel] = self._vector(np.broadcast_to(a, out.shape)[sel],
                                          np.broadcast_to(b, out.shape)[sel],
                                          kind == ELEMENTWISE and self.vec_flags[1], out.dtype)
        qmath.clamp_cast(r, self.lo, self.hi, out.dtype, out=out)

    def _vector(self, a: np.ndarray, b: np.ndarray, shift_first: bool, dtype) -> np.ndarray:
        """The vector lanes' result for offset inputs a, b (see the module docstring)."""
        x1 = vector_input(a, self.m1, self.e1, self.left_shift, shift_first)
        x2 = vector_input(b, self.m2, self.e2, self.left_shift, shift_first)
        return vector_output(x1 - x2 if self.sub else x1 + x2, self.mo, self.eo, self.zpo, dtype)


class QMulBase(qpairtable.TabulatedBinary, QuantOpKernel):
    """MUL of two quantized tensors (see the module docstring for the arithmetic)."""

    @classmethod
    def supports(cls, op, graph):
        a, b = (graph.operands[i] for i in op.inputs[:2])
        y = graph.operands[op.outputs[0]]
        if a.dtype != b.dtype or b.quant is None or y.quant is None:
            return False, "quantized MUL needs two inputs of the same quantized type"
        if any(t.quant.per_channel for t in (a, b, y)):
            return False, "quantized MUL is per-tensor only"
        if y.dtype != a.dtype and not (a.dtype == I16 and y.dtype in (I8, U8)):
            return False, (f"quantized MUL of {a.dtype} inputs into {y.dtype} is not supported "
                           f"(the interpreter refuses it too)")
        return super().supports(op, graph)

    def validate(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        act = self.op.params.get("fused_activation_function")
        self.lo, self.hi = self.qrange(y, act)
        self.zp1, self.zp2, self.zpo = self.zero_point(a), self.zero_point(b), self.zero_point(y)
        self.legacy = a.dtype == I16 and y.dtype != I16
        if a.dtype == I16 and y.dtype == I16 and (self.zp1 or self.zp2 or self.zpo):
            raise self.fail("int16 MUL needs zero points 0 (the interpreter refuses others)")
        real = self.scale(a) * self.scale(b) / self.scale(y)
        self.m, self.shift = (int(v) for v in qmath.quantize_multiplier(real))
        self.lanes = VECTOR_LANES.get(a.dtype)
        self.saturates = NARROW_SATURATES.get(a.dtype)
        self.tabulate(a.dtype, bool(self.lanes))     # 8-bit: the arithmetic, tabulated

    def prepare(self) -> None:
        if self.legacy and self.inputs[0].shape != self.inputs[1].shape:
            raise self.fail("int16 MUL into an 8-bit output needs inputs of the same shape "
                            "(the interpreter has no broadcasting form of it)")
        kinds = None
        if self.lanes is not None:
            a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
            kinds = loop_kinds(a.shape, b.shape, y.shape, *self.lanes)
        self.set_kinds(kinds)

    def _compute(self, a: np.ndarray, b: np.ndarray, kinds, out: np.ndarray) -> None:
        """The exact arithmetic on raw inputs a, b into out (loop kinds per element or None)."""
        a, b = a.astype(I64), b.astype(I64)
        if self.legacy:
            r = qmath.rounding_divide_by_pot(srdhm16(a, b), 8) + self.zpo
            qmath.clamp_cast(np.broadcast_to(r, out.shape), self.lo, self.hi, out.dtype, out=out)
            return
        p = np.broadcast_to((a - self.zp1) * (b - self.zp2), out.shape)
        r = qmath.multiply_by_quantized_multiplier(p, self.m, self.shift) + self.zpo
        if kinds is not None:
            for kind, saturate in zip((ELEMENTWISE, SCALAR_BROADCAST), self.saturates):
                sel = kinds == kind
                if sel.any():
                    r[sel] = mul_vector_lanes(p[sel], self.m, self.shift, self.zpo, out.dtype,
                                              saturate)
        qmath.clamp_cast(r, self.lo, self.hi, out.dtype, out=out)


__all__ = ["BinaryArithmeticBase", "QAddSubBase", "QMulBase", "VECTOR_LOOPS", "VECTOR_LANES",
           "NARROW_SATURATES"]
