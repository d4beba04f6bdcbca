"""Reduce (MEAN, SUM, REDUCE_MAX / MIN / PROD / ANY / ALL): the axes handling, validation and
quantized constants of TFLite's reduce.cc that every backend shares.

- Axes (input 1): each in [-rank, rank), normalized and deduplicated (`normalized_axes`);
  constant axes are resolved in prepare, computed ones in every run. REDUCE_MAX / REDUCE_MIN of
  an empty tensor are refused.
- Quantized forms, as reduce.cc's MEAN_OPT / SUM_OPT / PROD_OPT / MAX_OPT / MIN_OPT
  registrations compute them (the arithmetic itself: backends/cpu/ops/quant/qreduce.py):
  - MEAN, int8/uint8, rank 4, keep_dims, axis exactly [1, 2] or [2, 1] (the raw axis values):
    the optimized 4-D "HW" mean. M, shift = QuantizeMultiplier(float32(in_scale /
    (float32(count) * out_scale))); bias = out_zp - (int)round(in_zp * in_scale / out_scale) in
    float32.
  - MEAN otherwise (and int16 always): reference QuantizedMeanOrSum: M, shift from in_scale /
    out_scale (double); the 1/count folded in: s = min(floor(log2 count), 32, 31 + shift),
    M' = (M << s) / count, shift' = shift - s.
  - SUM int8/uint8: s = in_scale / out_scale, bias = -in_zp * s * count (float32). SUM int16:
    the plain generic sum in int16, which needs equal input/output scales.
  - REDUCE_MAX / REDUCE_MIN: TFLite requires equal scale and zero point.
  - REDUCE_PROD int8/int16 (uint8 is refused by TFLite): M, shift = QuantizeMultiplier(
    in_scale / out_scale ** (1 / count)).
  int16 needs zero points 0 on input and output (PrepareSimple).

Kernels: backends/cpu/ops/reduce.py (float) and backends/cpu/ops/quant/qreduce.py (quantized),
acl_neon ops/reduce.py and ops/quant_reduce.py (MEAN), acl_cl ops/reduce.py and
ops/quant_reduce.py (MEAN).
"""
from __future__ import annotations

import numpy as np

from ..quant import qmath
from .base import OpKernel
from .base import dtypes as dts
from .movement import ints
from .quant_base import I8, I16, U8, QuantOpKernel

F32 = np.float32


def normalized_axes(raw: list[int], rank: int, error=ValueError) -> tuple[int, ...]:
    """The reduced axes: `raw` checked against `rank` (else `error` is raised), made
    non-negative, deduplicated and sorted."""
    if any(not -rank <= a < rank for a in raw):
        raise error(f"axes {raw} out of range for rank {rank}")
    return tuple(sorted({a % rank for a in raw})) if rank else ()


def reduced_count(shape, axes) -> int:
    """How many elements each output element reduces."""
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


class ReduceBase(OpKernel):
    """Float and integer reductions; `axes` holds the normalized constant axes after prepare
    (None: computed axes, read in every run)."""

    # SUM / MEAN / PROD of unquantized 8/16-bit ints take the interpreter's quantized path
    # (rescaled by the tensors' scales), so only plain max/min are taken in those dtypes.
    dtypes = dts("float32", "int32", "int64", "bool")
    subtype_dtypes = {**dict.fromkeys(("REDUCE_ANY", "REDUCE_ALL"), dts("bool")),
                      **dict.fromkeys(("MEAN", "SUM", "REDUCE_PROD"),
                                      dts("float32", "int32", "int64")),
                      **dict.fromkeys(("REDUCE_MAX", "REDUCE_MIN"),
                                      dts("float32", "int32", "int64", "int8", "uint8", "int16"))}

    def validate(self) -> None:
        self.axes = None      # computed axes are read in every run; constant ones in prepare

    def prepare(self) -> None:
        x = self.buf(0)
        if self.inputs[1].is_constant:      # normalized for the input's current rank
            self.axes = normalized_axes(ints(self.buf(1)), x.ndim, self.fail)
        if x.size == 0 and self.op.subtype in ("REDUCE_MAX", "REDUCE_MIN"):
            raise self.fail("max/min over an empty tensor")


class QReduceBase(QuantOpKernel):
    """The quantized reductions' frame: constant axes are resolved, and the op's constants
    (`constants`: count, multipliers, ...) computed, in prepare (`plan`: (axes, constants), None
    for computed axes: `make_plan` then runs in every run)."""

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized {self.op.subtype} needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        if x.dtype == I16 and (self.zero_point(x) != 0 or self.zero_point(y) != 0):
            raise self.fail(f"int16 {self.op.subtype} needs zero points 0")
        # computed axes are read in every run
        self.raw = ints(self.buf(1)) if self.inputs[1].is_constant else None
        self.in_zp, self.out_zp = self.zero_point(x), self.zero_point(y)
        self.lo, self.hi = qmath.dtype_range(y.dtype)
        self.setup()

    def setup(self) -> None:
        pass

    def prepare(self) -> None:
        self.plan = None if self.raw is None else self.make_plan(self.raw, self.buf(0).shape)

    def make_plan(self, raw: list[int], shape: tuple[int, ...]) -> tuple:
        """(normalized axes, the op's constants) for raw axis values on an input shape."""
        axes = normalized_axes(raw, len(shape), self.fail)
        return axes, self.constants(raw, axes, shape, reduced_count(shape, axes))

    def constants(self, raw: list[int], axes: tuple[int, ...], shape: tuple[int, ...],
                  n: int):
        """What the reduction needs besides the input and the axes (n: the reduced count)."""
        return n


class QReduceMaxMinBase(QReduceBase):
    def setup(self) -> None:
        self.check_same_quant(self.inputs[0], self.outputs[0])

    def prepare(self) -> None:
        if self.buf(0).size == 0:
            raise self.fail("max/min over an empty tensor")
        super().prepare()


class QMeanBase(QReduceBase):
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


class QSumBase(QReduceBase):
    def setup(self) -> None:
        if self.inputs[0].dtype == I16:
            self.check_same_quant(self.inputs[0], self.outputs[0])

    def constants(self, raw, axes, shape, n):
        """None for int16; else the float32 (scale, bias)."""
        if self.inputs[0].dtype == I16:
            return None
        scale = F32(self.scale(self.inputs[0])) / F32(self.scale(self.outputs[0]))
        return scale, F32(F32(-self.in_zp) * scale) * F32(n)


class QProdBase(QReduceBase):
    dtypes = frozenset({I8, I16})

    def constants(self, raw, axes, shape, n):
        """None for an empty input or reduction; else (n, M, shift, axis order)."""
        if n == 0 or 0 in shape:
            return None
        real = np.float64(self.scale(self.inputs[0])) / np.power(
            np.float64(self.scale(self.outputs[0])), 1.0 / n)
        m, s = qmath.quantize_multiplier(real)
        return n, m, s, [a for a in range(len(shape)) if a not in axes] + list(axes)


__all__ = ["normalized_axes", "reduced_count", "ReduceBase", "QReduceBase", "QReduceMaxMinBase",
           "QMeanBase", "QSumBase", "QProdBase"]
