"""Quantized reductions MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, as TFLite's reduce.cc
(MEAN_OPT / SUM_OPT / PROD_OPT / MAX_OPT / MIN_OPT registrations) computes them. Validation,
axes and the constants (multipliers, shifts, biases): core/ops/reduce.py. Float form:
backends/cpu/ops/reduce.py.

- MEAN, int8/uint8, rank 4, keep_dims, axis exactly [1, 2] or [2, 1] (the raw axis values):
  the optimized 4-D "HW" mean. acc = sum of the raw values; out = rescale(acc) + bias, clamped.
  Depth runs 16 lanes at a time with the vector rounding, the remaining channels with the
  scalar one.
- MEAN otherwise (and int16 always): reference QuantizedMeanOrSum: out =
  MultiplyByQuantizedMultiplier(sum - count * in_zp, M', shift') + out_zp, clamped.
- SUM int8/uint8: optimized QuantizedMeanOrSum in float32: round(sum * s + bias) + out_zp,
  std::round, clamped to the output type (probed: the interpreter saturates). SUM int16: the
  plain generic sum in int16 (wrapping).
- REDUCE_MAX / REDUCE_MIN: plain max/min.
- REDUCE_PROD int8/int16: the running product rescaled at every step by M, shift with the int64
  MultiplyByQuantizedMultiplier, in row-major order of the reduced elements, then rescaled
  once more, plus out_zp, clamped.
Checked against the interpreter.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.movement import ints
from .....core.ops.reduce import (QMeanBase, QProdBase, QReduceBase, QReduceMaxMinBase,
                                  QSumBase)
from .....core.quant import qmath
from .base import quantized, register

I64 = np.int64
F32 = np.float32


class QReduceLayer(QReduceBase):
    """Runs the plan of core/ops/reduce.py (computed axes: planned in every run). Subclasses
    define `reduce(x, axes, constants)`, the result with the reduced axes kept."""

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        axes, constants = self.plan or self.make_plan(ints(self.buf(1)), x.shape)
        np.copyto(out, self.reduce(x, axes, constants).reshape(out.shape), casting="unsafe")


@register("Reduce.REDUCE_MAX", "Reduce.REDUCE_MIN", when=quantized)
class QReduceMaxMinLayer(QReduceMaxMinBase, QReduceLayer):
    def setup(self) -> None:
        super().setup()
        self.fn = np.max if self.op.subtype == "REDUCE_MAX" else np.min

    def reduce(self, x, axes, n):
        return self.fn(x, axis=axes, keepdims=True) if axes else x


@register("Reduce.MEAN", when=quantized)
class QMeanLayer(QMeanBase, QReduceLayer):
    def reduce(self, x, axes, constants):
        if constants is None:
            return np.zeros(self.outputs[0].buffer.shape, I64)
        hw, m, s, offset = constants
        total = np.sum(x, axis=axes, keepdims=True, dtype=I64)
        if hw:      # offset: the bias; depth 16 lanes at a time, the rest scalar
            k = qmath.vector_part(total.shape[-1], 16)
            acc = np.empty_like(total)
            acc[..., :k] = qmath.multiply_by_quantized_multiplier_vector(total[..., :k], m, s)
            acc[..., k:] = qmath.multiply_by_quantized_multiplier(total[..., k:], m, s)
            return np.clip(acc + offset, self.lo, self.hi)
        out = qmath.multiply_by_quantized_multiplier(total - offset, m, s) + self.out_zp
        return np.clip(out, self.lo, self.hi)


@register("Reduce.SUM", when=quantized)
class QSumLayer(QSumBase, QReduceLayer):
    def reduce(self, x, axes, constants):
        total = np.sum(x, axis=axes, keepdims=True, dtype=I64) if axes else x.astype(I64)
        if constants is None:           # int16: the int16 sum, wrapping
            return qmath.wrap_int32(total << 16) >> 16
        scale, bias = constants
        with np.errstate(invalid="ignore", over="ignore"):
            v = total.astype(F32) * scale + bias
            r = qmath.round_half_away(v)
            r = np.where(np.abs(r) < 2.0 ** 31, r, qmath.INT32_MIN).astype(I64)
        return np.clip(r + self.out_zp, self.lo, self.hi)


@register("Reduce.REDUCE_PROD", when=quantized)
class QProdLayer(QProdBase, QReduceLayer):
    def reduce(self, x, axes, constants):
        if constants is None:
            return np.zeros(self.outputs[0].buffer.shape, I64)
        n, m, s, order = constants
        cols = np.transpose(x, order).reshape(-1, n).astype(I64) - self.in_zp
        cur = cols[:, 0].copy()
        for j in range(1, n):
            cur = qmath.wrap_int32(qmath.multiply_by_quantized_multiplier_int64(
                cur * cols[:, j], m, s))
        out = qmath.multiply_by_quantized_multiplier_int64(cur, m, s) + self.out_zp
        shape = [1 if a in axes else d for a, d in enumerate(x.shape)]
        return np.clip(out, self.lo, self.hi).reshape(shape)
