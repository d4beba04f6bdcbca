"""Pieces of quantized models: quantization dicts and specs, one-op quantized models (unary,
binary, SOFTMAX), random convolution filters and inputs, and every pair of 8-bit values."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from onert_py.model_builder import single_op_model
from quant_harness import qrand

# (dtype, scale, zero point) of the activations each quantized test runs with
QTYPES = {
    "int8": ("int8", 0.05, -3),
    "uint8": ("uint8", 0.05, 131),
    "int16": ("int16", 0.001, 0),
}


def qdict(scale: float | Sequence[float], zero_point: int | Sequence[int],
          axis: int | None = None) -> dict[str, Any]:
    """A quantization dict for the model builder (per channel when `scale` is a sequence)."""
    sc = list(np.atleast_1d(np.asarray(scale, np.float32)).tolist())
    zp = list(np.atleast_1d(np.asarray(zero_point, np.int64)).tolist())
    if len(zp) == 1 and len(sc) > 1:
        zp = zp * len(sc)
    d: dict[str, Any] = {"scale": sc, "zero_point": zp}
    if axis is not None:
        d["quantized_dimension"] = int(axis)
    return d


def qspec(name: str, shape: Sequence[int], dtype: str, scale: float, zero_point: int) -> tuple:
    """An input/output spec with quantization for `single_op_model`."""
    return (name, tuple(shape), dtype, qdict(scale, zero_point))


def quantized_unary(op: str, shape: Sequence[int], qin: tuple, qout: tuple,
                    out_shape: Sequence[int] | None = None, **options: Any) -> bytes:
    """A one-op model on one quantized input; qin/qout are (dtype, scale, zero_point)."""
    return single_op_model(op, [qspec("x", shape, *qin)],
                           [qspec("y", out_shape or shape, *qout)], **options)


def quantized_binary(op: str, sa: Sequence[int], sb: Sequence[int], dtype: str, qa: tuple,
                     qb: tuple, qo: tuple, out_dtype: str | None = None, **options: Any) -> bytes:
    """A one-op model on two quantized inputs `a` and `b` of `dtype`, the output shape broadcast
    from theirs (of `out_dtype`, `dtype` by default); qa/qb/qo are (scale, zero_point)."""
    so = np.broadcast_shapes(sa, sb)
    return single_op_model(op, [qspec("a", sa, dtype, *qa), qspec("b", sb, dtype, *qb)],
                           [qspec("y", so, out_dtype or dtype, *qo)], **options)


def conv_filter(rng: np.random.Generator, dt: str, shape: Sequence[int], cout: int,
                per_channel: bool, ties: bool, zero_point: int | None = None) -> tuple:
    """A random quantized convolution filter for `dt` activations, its zero point and scales:
    uint8 (zero point 118 unless given) or int8 in [-127, 127] (zero point 0 unless given);
    `cout` scales (or one) drawn from [0.004, 0.02], or powers of two with `ties`."""
    if dt == "uint8":
        zp = 118 if zero_point is None else zero_point
        w = qrand(rng, shape, "uint8")
    else:
        zp = 0 if zero_point is None else zero_point
        w = qrand(rng, shape, "int8", -127, 127)
    if ties:
        scales = 2.0 ** -rng.integers(0, 3, cout) if per_channel else np.array([0.25])
    else:
        scales = rng.uniform(0.004, 0.02, cout) if per_channel else np.array([0.01])
    return w, zp, scales.astype(np.float32)


def conv_input(rng: np.random.Generator, shape: Sequence[int], dt: str, scale: float,
               zero_point: int, w_scales: np.ndarray, taps: int, ties: bool) -> tuple:
    """A random input for a quantized convolution with `taps` products per output, and an
    output scale that spreads the accumulators over the output range (`ties`: a power-of-two
    multiplier instead, on inputs near the zero point)."""
    if ties:
        y_scale = scale * 2.0 ** int(rng.integers(1, 4))
        x = qrand(rng, shape, dt, zero_point - 40, zero_point + 40) if dt != "int16" \
            else qrand(rng, shape, dt, -60, 60)
    else:
        x_std, target = (74.0, 40.0) if dt != "int16" else (18900.0, 8000.0)
        y_scale = scale * float(w_scales.mean()) * np.sqrt(taps) * x_std * 73.0 / target
        x = qrand(rng, shape, dt)
    return x, y_scale


def all_pairs(dtype):
    info = np.iinfo(dtype)
    v = np.arange(info.min, info.max + 1)
    a, b = np.meshgrid(v, v, indexing="ij")
    return a.reshape(-1).astype(dtype), b.reshape(-1).astype(dtype)


# the output parameters TFLite's 8-bit SOFTMAX requires
SOFTMAX_OUT = {"int8": (1 / 256, -128), "uint8": (1 / 256, 0)}


def softmax_model(dtype: str, shape: Sequence[int], qin: tuple, qout: tuple | None = None,
                  beta: float = 1.0, out_dtype: str | None = None) -> bytes:
    """A quantized SOFTMAX from `dtype` to `out_dtype` (`dtype` by default); qin/qout are
    (scale, zero_point), qout by default SOFTMAX_OUT's."""
    return quantized_unary("SOFTMAX", shape, (dtype, *qin),
                           (out_dtype or dtype, *(qout or SOFTMAX_OUT[dtype])), beta=beta)
