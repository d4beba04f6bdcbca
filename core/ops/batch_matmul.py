"""BATCH_MATMUL's shared logic: the float kernels' checks (`BatchMatMulBase`) and the quantized
form (`QBatchMatMulBase`): its Prepare, and the reference integer computation (`compute`) that
the cpu kernel runs and acl_neon falls back to for the forms its native code does not take.

tensorflow/lite/kernels/batch_matmul.cc runs the REFERENCE kernel (reference_ops::BatchMatMul)
for every quantized form, verified against the interpreter on ties (multipliers 0.25, 0.5),
zero points, adj_x/adj_y, broadcast batch dimensions, constant and non-constant rhs:

* int8 -> int8: int32 accumulator sum (a - a_zp)(b - b_zp), rescaled by the scalar
  MultiplyByQuantizedMultiplier (qmath.multiply_by_quantized_multiplier: halves away from zero)
  with QuantizeMultiplier(double(float32(s_a * s_b)) / s_y) -- the scale product in float32 --
  plus the output zero point, clamped to int8 (no fused activation).
* int8 -> int32 (an unquantized int32 output): the raw sum of products, zero points ignored.
* int16 x int16 / int16 x int8 -> int16 (all zero points 0): int64 accumulator rescaled by the
  int64 MultiplyByQuantizedMultiplier (multiplier reduced to 16 bits, one rounding shift).

Kernels: cpu backends/cpu/ops/batch_matmul.py (float), quant/qbatch_matmul.py (quantized),
hybrid_batch_matmul.py (hybrid); acl_neon ops/batch_matmul.py; acl_cl ops/batch_matmul.py.
"""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Operation
from ..quant import qmath
from ..quant.qgemm import Operand, dtype_bound, exact_matmul
from .base import OpKernel
from .quant_base import I8, I16, QuantOpKernel

I32 = np.dtype(np.int32)


class BatchMatMulBase(OpKernel):
    """Float BATCH_MATMUL: operands of rank 2 or more."""

    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")


class QBatchMatMulBase(QuantOpKernel):
    """Quantized BATCH_MATMUL (int8 x int8, int16 x int16, int16 x int8). validate() leaves the
    adjoints, zero points, `raw` (the int32 output form), the constant rhs as an Operand (`bop`)
    and, unless raw, QuantizeMultiplier's `m`, `s`, the clamp and the lhs bound."""

    dtypes = frozenset({I8, I16})

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        a, b = graph.operands[op.inputs[0]], graph.operands[op.inputs[1]]
        y = graph.operands[op.outputs[0]]
        ok_pairs = {(I8, I8), (I16, I16), (I16, I8)}
        if (a.dtype, b.dtype) not in ok_pairs:
            return False, f"quantized BATCH_MATMUL does not take {a.dtype} x {b.dtype}"
        if b.quant is None:
            return False, "quantized BATCH_MATMUL: rhs has no quantization parameters"
        if y.dtype not in ((I8, I32) if a.dtype == I8 else (I16,)):
            return False, f"quantized BATCH_MATMUL: {a.dtype} inputs with {y.dtype} output"
        return super().supports(op, graph)

    def validate(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        for name, t in (("lhs", a), ("rhs", b)):
            if not t.is_dynamic and not 2 <= len(t.shape) <= 5:
                raise self.fail(f"{name} must have rank 2 to 5, got {tuple(t.shape)}")
        if np.asarray(b.quant.scale).size > 1 or np.asarray(a.quant.scale).size > 1:
            raise self.fail("quantized BATCH_MATMUL takes per-tensor scales only")
        p = self.op.params
        self.adj_x, self.adj_y = bool(p.get("adj_x", False)), bool(p.get("adj_y", False))
        self.raw = y.dtype == I32              # the int32 form ignores zero points
        self.a_zp, self.b_zp = (0, 0) if self.raw else (self.zero_point(a), self.zero_point(b))
        self.bop = Operand(self.rhs(b.buffer), self.b_zp) if b.is_constant else None
        if self.raw:
            return
        if y.quant is None:
            raise self.fail("output has no quantization parameters")
        self.y_zp = self.zero_point(y)
        if a.dtype == I16 and (self.a_zp or self.b_zp or self.y_zp):
            raise self.fail("int16 BATCH_MATMUL needs zero points 0")
        real = np.float64(np.float32(self.scale(a)) * np.float32(self.scale(b))) \
            / np.float64(self.scale(y))
        self.m, self.s = qmath.quantize_multiplier(real)
        self.lo, self.hi = qmath.dtype_range(y.dtype)
        self.a_bound = dtype_bound(a.dtype, self.a_zp)

    def rhs(self, b: np.ndarray) -> np.ndarray:
        return np.swapaxes(b, -1, -2) if self.adj_y else b

    def operands(self, b_bound: int | None = None) -> tuple[Operand, Operand]:
        """This run's lhs and rhs minus their zero points, adjoints applied (`b_bound`: a known
        bound on a run-time rhs, else it is scanned)."""
        a = self.buf(0)
        if self.adj_x:
            a = np.swapaxes(a, -1, -2)
        bop = self.bop if self.bop is not None else \
            Operand(self.rhs(self.buf(1)), self.b_zp, b_bound)
        return Operand(a, self.a_zp, None if self.raw else self.a_bound), bop

    def compute(self) -> None:
        """The reference computation into the output: the exact product, then the raw int32
        wrap or TFLite's rescale, zero point and clamp (see the module doc)."""
        aop, bop = self.operands()
        acc = exact_matmul(aop, bop)
        out = self.out
        if self.raw:
            np.copyto(out, qmath.wrap_int32(acc), casting="unsafe")
            return
        if out.dtype == I8:
            r = qmath.multiply_by_quantized_multiplier(qmath.wrap_int32(acc), self.m, self.s)
        else:
            r = qmath.multiply_by_quantized_multiplier_int64(acc, self.m, self.s)
        qmath.clamp_cast(r + self.y_zp, self.lo, self.hi, out.dtype, out=out)


__all__ = ["BatchMatMulBase", "QBatchMatMulBase"]
