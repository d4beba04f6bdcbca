"""Exact integer matrix products for the quantized kernels, on float BLAS.

NumPy's integer matmul has no BLAS behind it (orders of magnitude slower), so the products of
zero-point-shifted int8/uint8/int16 operands are accumulated in floating point where that is
exact: float32 while every partial sum stays below 2^24 (bound K * max|a| * max|b|), float64
below 2^53, and beyond that float64 over chunks of the depth axis each below 2^53, summed in
int64. The result is the exact int64 sum of products, as TFLite's int32/int64 accumulators hold
it (callers wrap to int32 where the TFLite kernel would).

`Operand` prepares one side once (a constant weight matrix: shifted by its zero point, with its
largest magnitude and float copies cached); `exact_matmul` multiplies with NumPy broadcasting
of batch dimensions (np.matmul semantics, contraction over a's last and b's second-last axis).
"""
from __future__ import annotations

import numpy as np

F32_EXACT = float(1 << 24)
F64_EXACT = float(1 << 53)
I64 = np.int64


class Operand:
    """An integer matrix (or batch of matrices) minus its zero point, with cached float copies.
    `zero_point` may be a scalar or an array broadcasting against `values` (per channel).
    `bound`, when given, is a known bound on |values - zero_point| (skips the scan)."""

    __slots__ = ("raw", "zp", "amax", "_f32", "_f64")

    def __init__(self, values: np.ndarray, zero_point=0, bound: int | None = None) -> None:
        self.raw = np.asarray(values)
        self.zp = np.asarray(zero_point, I64)
        if bound is None:
            shifted = self.raw.astype(I64) - self.zp
            bound = int(np.max(np.abs(shifted))) if shifted.size else 0
        self.amax = int(bound)
        self._f32: np.ndarray | None = None
        self._f64: np.ndarray | None = None

    def as_float(self, dtype) -> np.ndarray:
        """values - zero_point in float32/float64 (exact: integers below 2^24)."""
        ft = np.dtype(dtype)
        cached = self._f32 if ft == np.float32 else self._f64
        if cached is None:
            cached = self.raw.astype(ft)
            if np.any(self.zp):
                cached = cached - self.zp.astype(ft)
            if ft == np.float32:
                self._f32 = cached
            else:
                self._f64 = cached
        return cached

    @property
    def depth(self) -> int:
        return int(self.raw.shape[-1])


def dtype_bound(dtype, zero_point=0) -> int:
    """The largest |q - zero_point| a tensor of integer `dtype` can hold (no data scan)."""
    info = np.iinfo(np.dtype(dtype))
    zp = int(np.max(np.abs(np.asarray(zero_point, I64)))) if np.size(zero_point) else 0
    return max(abs(int(info.min)) + zp, abs(int(info.max)) + zp)


def pick_float(depth: int, amax: int, bmax: int):
    """The float type whose matmul is exact for this bound, or None (chunk in float64)."""
    bound = float(depth) * float(amax) * float(bmax)
    if bound < F32_EXACT:
        return np.float32
    if bound < F64_EXACT:
        return np.float64
    return None


def exact_matmul(a: Operand | np.ndarray, b: Operand | np.ndarray, a_zp=0, b_zp=0,
                 a_bound: int | None = None) -> np.ndarray:
    """The exact int64 product (a - a_zp) @ (b - b_zp) with np.matmul broadcasting.

    Plain arrays are shifted by the given zero points; `Operand`s carry their own. `a_bound`
    (a known bound on |a - a_zp|, e.g. `dtype_bound`) saves scanning `a` for its maximum."""
    A = a if isinstance(a, Operand) else Operand(a, a_zp, a_bound)
    B = b if isinstance(b, Operand) else Operand(b, b_zp)
    k = A.depth
    ft = pick_float(k, A.amax, B.amax)
    if ft is not None:
        r = np.matmul(A.as_float(ft), B.as_float(ft))
        return r.astype(I64)
    # chunk the depth so that each chunk's float64 sum stays exact, then sum in int64
    per = max(1, int(F64_EXACT // max(1.0, float(A.amax) * float(B.amax))) - 1)
    af, bf = A.as_float(np.float64), B.as_float(np.float64)
    total = None
    for s in range(0, k, per):
        part = np.matmul(af[..., s:s + per], bf[..., s:s + per, :]).astype(I64)
        total = part if total is None else total + part
    if total is None:
        shape = np.broadcast_shapes(af.shape[:-2], bf.shape[:-2]) + (af.shape[-2], bf.shape[-1])
        total = np.zeros(shape, I64)
    return total
