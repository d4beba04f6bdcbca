"""Integer arithmetic of TFLite's fully integer (8x8_16) LSTM, vectorized with NumPy (and the
exact int8 matrix products of the integer LSTM and SVDF kernels, `int_matmul`).

* gemmlowp's FixedPoint<int16> logistic and tanh (PortableApplySigmoid / PortableApplyTanh):
  qfixed.sigmoid16 / qfixed.tanh16, shared with the int16 TANH / LOGISTIC kernels.
* `layer_norm`: PortableApplyLayerNorm (integer mean/variance, GetInvSqrtQuantizedMultiplierExp,
  int32 wrap where C++ wraps, division truncating toward zero).
Values are carried in int64 arrays holding the C++ int16/int32 values.
"""
from __future__ import annotations

import numpy as np

from . import qmath
from .qfixed import inv_sqrt_multiplier_exp, trunc_div

I64 = np.int64
rdbp = qmath.rounding_divide_by_pot
mbqm = qmath.multiply_by_quantized_multiplier
wrap32 = qmath.wrap_int32


def clip16(x) -> np.ndarray:
    return np.clip(x, -32768, 32767)


def layer_norm(x, weights, bias, scale_a: int, scale_b: int, variance_limit: int) -> np.ndarray:
    """PortableApplyLayerNorm over the last axis of int16 values x (rows: batches)."""
    x = np.asarray(x, I64)
    n = x.shape[-1]
    total = x.sum(axis=-1, keepdims=True)
    mean = trunc_div(total * 1024, n)
    variance = (x * x).sum(axis=-1, keepdims=True) * ((1 << 20) // n) - mean * mean
    variance2 = wrap32(trunc_div(variance, 1 << 20))
    variance2 = np.where(variance2 < 1, variance_limit, variance2)
    inv_a, inv_b = inv_sqrt_multiplier_exp(variance2, -1)
    rescaled = mbqm(wrap32(1024 * x - mean), inv_a, inv_b)
    val3 = wrap32(rescaled * np.asarray(weights, I64) + np.asarray(bias, I64))
    val4 = trunc_div(np.where(val3 > 0, val3 + 512, val3 - 512), 1024)
    return clip16(mbqm(val4, scale_a, scale_b + 12))


def int_matmul(a: np.ndarray, b: np.ndarray, bound: float) -> np.ndarray:
    """Exact int64 a @ b for integer arrays whose partial sums stay below `bound` in
    magnitude: float32 BLAS while that is exact (< 2^24), float64 otherwise (< 2^53)."""
    dt = np.float32 if bound < float(1 << 24) else np.float64
    return np.matmul(a.astype(dt), b.astype(dt)).astype(I64)



__all__ = ["layer_norm", "clip16", "int_matmul", "mbqm", "rdbp",
           "wrap32"]
