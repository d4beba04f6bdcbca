"""Affine (de)quantization of whole arrays, as the TFLite interpreter's QUANTIZE and DEQUANTIZE
kernels compute it. Shared by the cpu backend's quantized kernels and the builtin Permute that
converts a quantized model's inputs and outputs to and from float32 on request."""
from __future__ import annotations

import numpy as np

INT32_MIN = -(1 << 31)
I64 = np.int64


def _per_axis(ndim: int, scale: np.ndarray, zp: np.ndarray, axis: int | None):
    if axis is not None and scale.size > 1:
        shape = [1] * ndim
        shape[axis] = -1
        return scale.reshape(shape), zp.reshape(shape)
    return scale, zp


def quantize(real: np.ndarray, scale, zero_point, dtype, axis: int | None = None) -> np.ndarray:
    """Affine quantization of float values as the interpreter's optimized AffineQuantize does it:
    value * (1 / scale) in float32, rounded half to even (the vector unit's conversion; the
    reference kernel's value / scale with TfLiteRound differs in the last step), plus the zero
    point, clamped. Checked against the interpreter on ties and random values."""
    real = np.asarray(real, np.float32)
    scale, zp = _per_axis(real.ndim, np.asarray(scale, np.float32),
                          np.asarray(zero_point, I64), axis)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.rint(real * (np.float32(1) / scale))
        if np.dtype(dtype) != np.int8:
            # the scalar float->int32 conversion of x86 gives INT32_MIN out of range (and NaN);
            # the int8 path saturates in the vector unit instead
            r = np.where(np.abs(r) < 2.0 ** 31, r, INT32_MIN)
        q = np.nan_to_num(r, nan=INT32_MIN).astype(I64) + zp
    info = np.iinfo(np.dtype(dtype))
    lo, hi = int(info.min), int(info.max)
    return np.clip(q, lo, hi).astype(dtype)


def dequantize(q: np.ndarray, scale, zero_point, axis: int | None = None,
               out: np.ndarray | None = None) -> np.ndarray:
    """scale * (q - zero_point) in float32 (the difference is exact in float32), per channel
    along `axis` when scale has many; into `out` when given."""
    q = np.asarray(q)
    scale, zp = _per_axis(q.ndim, np.asarray(scale, np.float32),
                          np.asarray(zero_point, np.float32), axis)
    return np.multiply(np.subtract(q, zp, dtype=np.float32), scale, out=out)


def channel_axis(quant) -> int | None:
    """The axis of a per-channel Quantization, None for a per-tensor one."""
    return quant.axis if quant.per_channel else None
