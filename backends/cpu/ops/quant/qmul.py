"""Quantized MUL with the interpreter's integer arithmetic (probed bit-exact:
tests/ops/test_q_mul.py).

int8 / uint8 (mul.cc Prepare: real = s1 * s2 / s_out in double from the float32 scales,
QuantizeMultiplier -> M, shift, which may be positive):
    p = (q1 - zp1) * (q2 - zp2)
    scalar loops (tails, generic broadcast): MultiplyByQuantizedMultiplier(p, M, shift) + zp_out
    vector lanes of the optimized kernels (optimized/integer_ops/mul.h for int8: 16 lanes in the
    elementwise and the scalar-broadcast loop; optimized_ops.h for uint8: 8 lanes):
        RoundingDivideByPOT(vqrdmulh(p << max(shift, 0), M), max(-shift, 0)) (vqrdmulh rounds
        halves up), narrowed to int16 with saturation (vqmovn; uint8's scalar-broadcast loop
        wraps instead, vmovn), the output offset added in int16 (wrapping), then saturated to
        the 8-bit type
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

from .....core.quant import qmath, qpairtable
from .base import I8, I16, U8, QuantKernel, quantized, register
from .....core.quant.qbinary_math import (ELEMENTWISE, SCALAR_BROADCAST, doubling_high_mul_up,
                           loop_kinds, shift_left, wrap_int16)

I64 = np.int64
# input dtype -> (elementwise lanes, scalar-broadcast lanes) of the optimized MUL kernels, and
# per loop (elementwise, scalar broadcast) whether its int32 -> int16 narrowing saturates
VECTOR_LANES = {I8: (16, 16), U8: (8, 8)}
NARROW_SATURATES = {I8: (True, True), U8: (True, False)}


def srdhm_int16(a, b) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul on int16 values (FixedPoint<int16, 0>)."""
    a, b = np.asarray(a, I64), np.asarray(b, I64)
    ab = a * b
    s = ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    hi = np.where(s >= 0, s >> 15, -((-s) >> 15))
    return np.where((a == -32768) & (b == -32768), 32767, hi)


def mul_vector_lanes(p: np.ndarray, multiplier: int, shift: int, offset: int, dtype,
                     saturate: bool = True) -> np.ndarray:
    """The optimized MUL kernels' vector arithmetic on products p (see the module docstring);
    `saturate`: whether the int32 -> int16 narrowing saturates (else it wraps)."""
    v = doubling_high_mul_up(shift_left(p, max(shift, 0)), multiplier)
    v = qmath.rounding_divide_by_pot(v, max(-shift, 0))
    v = (np.clip(v, -32768, 32767) if saturate else wrap_int16(v)) + offset
    v = wrap_int16(v)
    lo, hi = qmath.dtype_range(dtype)
    return np.clip(v, lo, hi)


@register("BinaryArithmetic.MUL", when=quantized)
class QuantMulLayer(qpairtable.TabulatedBinary, QuantKernel):
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
            r = qmath.rounding_divide_by_pot(srdhm_int16(a, b), 8) + self.zpo
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

