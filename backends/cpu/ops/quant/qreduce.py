"""Quantized reductions MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, as TFLite's reduce.cc
(MEAN_OPT / SUM_OPT / PROD_OPT / MAX_OPT / MIN_OPT registrations) computes them:

- MEAN, int8/uint8, rank 4, keep_dims, axis exactly [1, 2] or [2, 1] (the raw axis values):
  the optimized 4-D "HW" mean. acc = sum of the raw values; M, shift = QuantizeMultiplier(
  float32(in_scale / (float32(count) * out_scale))); bias = out_zp - (int)round(in_zp *
  in_scale / out_scale) in float32; out = rescale(acc) + bias, clamped. Depth runs 16 lanes at a
  time with the vector rounding, the remaining channels with the scalar one.
- MEAN otherwise (and int16 always): reference QuantizedMeanOrSum: M, shift from in_scale /
  out_scale (double); the 1/count folded in: s = min(floor(log2 count), 32, 31 + shift),
  M' = (M << s) / count, shift' = shift - s; out = MultiplyByQuantizedMultiplier(sum - count *
  in_zp, M', shift') + out_zp, clamped.
- SUM int8/uint8: optimized QuantizedMeanOrSum in float32: round(sum * s + bias) + out_zp with
  s = in_scale / out_scale, bias = -in_zp * s * count, std::round, clamped to the output type
  (probed: the interpreter saturates). SUM int16: the plain generic sum in int16 (wrapping),
  which needs equal input/output scales.
- REDUCE_MAX / REDUCE_MIN: plain max/min; TFLite requires equal scale and zero point.
- REDUCE_PROD int8/int16 (uint8 is refused by TFLite): the running product rescaled at every
  step by M, shift = QuantizeMultiplier(in_scale / out_scale ** (1 / count)) with the int64
  MultiplyByQuantizedMultiplier, in row-major order of the reduced elements, then rescaled
  once more, plus out_zp, clamped.
int16 needs zero points 0 on input and output (PrepareSimple). Checked against the interpreter.
"""
from __future__ import annotations

import numpy as np

from ..reduce_softmax import ReduceLayer
from .....core.quant import qmath
from .base import I8, I16, U8, QuantKernel, quantized, register

I64 = np.int64
F32 = np.float32


class QReduce(QuantKernel):
    """The quantized reductions' frame: constant axes are resolved, and the op's constants
    (`constants`: count, multipliers, ...) computed, in prepare; computed axes in every run.
    Subclasses define `reduce(x, axes, constants)`, the result with the reduced axes kept."""

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized {self.op.subtype} needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        if x.dtype == I16 and (self.zero_point(x) != 0 or self.zero_point(y) != 0):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0")
        self.raw = [int(a) for a in self.buf(1).reshape(-1)] if self.inputs[1].is_constant \
            else None           # computed axes are read in every run
        self.in_zp, self.out_zp = self.zero_point(x), self.zero_point(y)
        self.lo, self.hi = qmath.dtype_range(y.dtype)
        self.setup()

    def setup(self) -> None:
        pass

    def prepare(self) -> None:
        self.plan = None if self.raw is None else self.make_plan(self.raw, self.buf(0).shape)

    def make_plan(self, raw: list[int], shape: tuple[int, ...]) -> tuple:
        """(normalized axes, the op's constants) for raw axis values on an input shape."""
        axes = ReduceLayer.normalized(raw, len(shape), self.fail)
        n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        return axes, self.constants(raw, axes, shape, n)

    def constants(self, raw: list[int], axes: tuple[int, ...], shape: tuple[int, ...],
                  n: int):
        """What `reduce` needs besides the input and the axes (n: the reduced count)."""
        return n

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        axes, constants = self.plan or self.make_plan(
            [int(a) for a in self.buf(1).reshape(-1)], x.shape)
        np.copyto(out, self.reduce(x, axes, constants).reshape(out.shape), casting="unsafe")


@register("Reduce.REDUCE_MAX", "Reduce.REDUCE_MIN", when=quantized)
class QReduceMaxMin(QReduce):
    def setup(self) -> None:
        self.check_same_quant(self.inputs[0], self.outputs[0])
        self.fn = np.max if self.op.subtype == "REDUCE_MAX" else np.min

    def prepare(self) -> None:
        if self.buf(0).size == 0:
            raise self.fail("max/min over an empty tensor")
        super().prepare()

    def reduce(self, x, axes, n):
        return self.fn(x, axis=axes, keepdims=True) if axes else x


@register("Reduce.MEAN", when=quantized)
class QMean(QReduce):
    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.m, self.s = (int(v) for v in qmath.quantize_multiplier(
            np.float64(self.scale(x)) / np.float64(self.scale(y))))

    def hw_fast_path(self, shape: tuple[int, ...], raw: list[int]) -> bool:
        return (self.inputs[0].dtype in (I8, U8) and len(shape) == 4
                and self.op.params.keep_dims and sorted(a % 4 for a in raw) == [1, 2]
                and len(raw) == 2)

    def constants(self, raw, axes, shape, n):
        """None for an empty reduction; else (optimized HW mean?, M, shift, offset)."""
        if n == 0:
            return None
        if self.hw_fast_path(shape, raw):
            # optimized Mean4D: the uint8 MeanImpl arithmetic (int8 the same), float32 setup
            xs, ys = F32(self.scale(self.inputs[0])), F32(self.scale(self.outputs[0]))
            t = F32(F32(self.in_zp) * xs / ys)
            t = t + F32(0.5) if t > 0 else t - F32(0.5)
            m, s = qmath.quantize_multiplier(np.float64(F32(xs / F32(F32(n) * ys))))
            return True, m, s, self.out_zp - int(t)
        k = min(n.bit_length() - 1, 32, 31 + self.s)     # the 1 / count folded into M
        return False, (self.m << k) // n, self.s - k, n * self.in_zp

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
class QSum(QReduce):
    def setup(self) -> None:
        if self.inputs[0].dtype == I16:
            self.check_same_quant(self.inputs[0], self.outputs[0])

    def constants(self, raw, axes, shape, n):
        """None for int16; else the float32 (scale, bias)."""
        if self.inputs[0].dtype == I16:
            return None
        scale = F32(self.scale(self.inputs[0])) / F32(self.scale(self.outputs[0]))
        return scale, F32(F32(-self.in_zp) * scale) * F32(n)

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
class QProd(QReduce):
    dtypes = frozenset({I8, I16})

    def constants(self, raw, axes, shape, n):
        """None for an empty input or reduction; else (n, M, shift, axis order)."""
        if n == 0 or 0 in shape:
            return None
        real = np.float64(self.scale(self.inputs[0])) / np.power(
            np.float64(self.scale(self.outputs[0])), 1.0 / n)
        m, s = qmath.quantize_multiplier(real)
        return n, m, s, [a for a in range(len(shape)) if a not in axes] + list(axes)

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
