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
from . import qmath
from .base import I8, I16, U8, QuantKernel, qregister

I64 = np.int64
F32 = np.float32


class QReduce(QuantKernel):
    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized {self.op.subtype} needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        if x.dtype == I16 and (self.zero_point(x) != 0 or self.zero_point(y) != 0):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0")
        self.axes = None
        self.raw = None
        if self.inputs[1].is_constant:
            self.raw = [int(a) for a in self.inputs[1].buffer.reshape(-1)]
            if not x.is_dynamic:
                self.axes = ReduceLayer.normalized(self.raw, len(x.shape), self.fail)
        self.in_zp, self.out_zp = self.zero_point(x), self.zero_point(y)
        self.lo, self.hi = qmath.dtype_range(y.dtype)
        self.setup()

    def setup(self) -> None:
        pass

    def current_axes(self, x: np.ndarray) -> tuple[list[int], tuple[int, ...]]:
        if self.axes is not None:
            return self.raw, self.axes
        raw = self.raw if self.raw is not None else [int(a) for a in self.buf(1).reshape(-1)]
        return raw, ReduceLayer.normalized(raw, x.ndim, self.fail)

    def run(self) -> None:
        x = self.inputs[0].buffer
        raw, axes = self.current_axes(x)
        res = self.reduce(x, raw, axes)
        np.copyto(self.outputs[0].buffer, res.reshape(self.outputs[0].buffer.shape),
                  casting="unsafe")

    @staticmethod
    def count(x: np.ndarray, axes) -> int:
        return int(np.prod([x.shape[a] for a in axes], dtype=np.int64))


@qregister("Reduce.REDUCE_MAX", "Reduce.REDUCE_MIN")
class QReduceMaxMin(QReduce):
    def setup(self) -> None:
        self.check_same_quant(self.inputs[0], self.outputs[0])
        if self.inputs[0].shape and 0 in self.inputs[0].shape:
            raise self.fail("max/min over an empty tensor")

    def reduce(self, x, raw, axes):
        fn = np.max if self.op.subtype == "REDUCE_MAX" else np.min
        return fn(x, axis=axes, keepdims=True) if axes else x


@qregister("Reduce.MEAN")
class QMean(QReduce):
    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.m, self.s = (int(v) for v in qmath.quantize_multiplier(
            np.float64(self.scale(x)) / np.float64(self.scale(y))))

    def hw_fast_path(self, x: np.ndarray, raw: list[int]) -> bool:
        return (x.dtype in (I8, U8) and x.ndim == 4 and self.op.params.keep_dims
                and sorted(a % 4 for a in raw) == [1, 2] and len(raw) == 2)

    def reduce(self, x, raw, axes):
        n = self.count(x, axes)
        if n == 0:
            return np.zeros(self.outputs[0].buffer.shape, I64)
        total = np.sum(x, axis=axes, keepdims=True, dtype=I64)
        if self.hw_fast_path(x, raw):
            return self.hw_mean(total, n)
        m, s = self.m, self.s
        k = min(n.bit_length() - 1, 32, 31 + s)
        m, s = (m << k) // n, s - k
        out = qmath.multiply_by_quantized_multiplier(total - n * self.in_zp, m, s) + self.out_zp
        return np.clip(out, self.lo, self.hi)

    def hw_mean(self, total: np.ndarray, n: int) -> np.ndarray:
        """optimized Mean4D: the uint8 MeanImpl arithmetic (int8 the same), float32 setup."""
        xs, ys = F32(self.scale(self.inputs[0])), F32(self.scale(self.outputs[0]))
        t = F32(F32(self.in_zp) * xs / ys)
        t = t + F32(0.5) if t > 0 else t - F32(0.5)
        bias = self.out_zp - int(t)
        m, s = qmath.quantize_multiplier(np.float64(F32(xs / F32(F32(n) * ys))))
        depth = total.shape[-1]
        k = qmath.vector_part(depth, 16)
        acc = np.empty_like(total)
        acc[..., :k] = qmath.multiply_by_quantized_multiplier_vector(total[..., :k], m, s)
        acc[..., k:] = qmath.multiply_by_quantized_multiplier(total[..., k:], m, s)
        return np.clip(acc + bias, self.lo, self.hi)


@qregister("Reduce.SUM")
class QSum(QReduce):
    def setup(self) -> None:
        if self.inputs[0].dtype == I16:
            self.check_same_quant(self.inputs[0], self.outputs[0])

    def reduce(self, x, raw, axes):
        total = np.sum(x, axis=axes, keepdims=True, dtype=I64) if axes else x.astype(I64)
        bits = 8 * x.dtype.itemsize
        if x.dtype == I16:
            return qmath.wrap_int32(total << (32 - bits)) >> (32 - bits)
        n = self.count(x, axes)
        scale = F32(self.scale(self.inputs[0])) / F32(self.scale(self.outputs[0]))
        bias = F32(F32(-self.in_zp) * scale) * F32(n)
        with np.errstate(invalid="ignore", over="ignore"):
            v = total.astype(F32) * scale + bias
            r = qmath.round_half_away(v)
            r = np.where(np.abs(r) < 2.0 ** 31, r, qmath.INT32_MIN).astype(I64)
        return np.clip(r + self.out_zp, self.lo, self.hi)


@qregister("Reduce.REDUCE_PROD")
class QProd(QReduce):
    dtypes = frozenset({I8, I16})

    def reduce(self, x, raw, axes):
        n = self.count(x, axes)
        if n == 0 or x.size == 0:
            return np.zeros(self.outputs[0].buffer.shape, I64)
        real = np.float64(self.scale(self.inputs[0])) / np.power(
            np.float64(self.scale(self.outputs[0])), 1.0 / n)
        m, s = qmath.quantize_multiplier(real)
        keep = [a for a in range(x.ndim) if a not in axes]
        cols = np.transpose(x, keep + list(axes)).reshape(-1, n).astype(I64) - self.in_zp
        cur = cols[:, 0].copy()
        for j in range(1, n):
            cur = qmath.wrap_int32(qmath.multiply_by_quantized_multiplier_int64(
                cur * cols[:, j], m, s))
        out = qmath.multiply_by_quantized_multiplier_int64(cur, m, s) + self.out_zp
        shape = [1 if a in axes else d for a, d in enumerate(x.shape)]
        return np.clip(out, self.lo, self.hi).reshape(shape)
