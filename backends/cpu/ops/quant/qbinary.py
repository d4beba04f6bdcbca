"""Quantized ADD and SUB (int8, uint8, int16) with the interpreter's integer arithmetic.

General path (add.cc / sub.cc Prepare; int8/uint8 with left_shift 20, int16 with 15 when the
int16 scales are not all powers of two or `pot_scale_int16` is off):
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
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qmath, qpairtable
from .base import I16, QuantKernel, quantized, register
from .....core.quant.qbinary_math import (ELEMENTWISE, SCALAR_BROADCAST, common_scale, loop_kinds,
                           rescale_below_one, vector_input, vector_output)
from .....core.quant.qlut_math import checked_log2

I64 = np.int64
# (op, dtype) -> (elementwise loop lanes, whether it folds the input shift in before vqrdmulh,
# scalar-broadcast loop lanes) of the optimized kernels; ops not listed run reference kernels
VECTOR_LOOPS = {("ADD", np.dtype(np.uint8)): (8, False, 8),
                ("ADD", np.dtype(np.int8)): (16, True, 8)}


@register("BinaryArithmetic", when=quantized)
class QuantAddSubLayer(qpairtable.TabulatedBinary, QuantKernel):
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
