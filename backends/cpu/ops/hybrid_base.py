"""The shared pieces of the hybrid (dynamic-range quantized) kernels: TFLite's run-time
quantization of float input rows, the rescale of the int accumulators, and the checks of int8
weights.

Hybrid kernels take float32 input/output and int8 constant weights with a per-tensor or
per-channel scale, as the TFLite converter's dynamic-range quantization writes. TFLite's hybrid
kernels quantize the float input to int8 at run time (per batch row for FULLY_CONNECTED and
BATCH_MATMUL, per image for CONV_2D), symmetric (scale = max|x| / 127, values in [-127, 127])
or, with `asymmetric_quantize_inputs`, asymmetric (range [min(x, 0), max(x, 0)] over
[-128, 127] with a nudged zero point); they accumulate int8 x int8 products in int32 and rescale
by input scale x weight scale. These kernels do the same integer arithmetic (exact in int64), so
they match the interpreter up to float rounding of the final rescale.

Each hybrid class is registered under its op's key for the hybrid form (`when=hybrid`,
core/ops/forms.py); the float kernel runs the op's other forms. The kernels:
hybrid_fully_connected.py, hybrid_conv.py (CONV_2D, DEPTHWISE_CONV_2D), hybrid_batch_matmul.py,
hybrid_embedding_lookup.py (its dtypes only), and through hybrid_rnn_cell.py the recurrent ones
(hybrid_rnn.py, hybrid_lstm.py, hybrid_svdf.py)."""
from __future__ import annotations

import numpy as np

from .common import OpKernel
from ....core.quant.qmath import round_half_away

I8 = np.dtype(np.int8)
F32 = np.dtype(np.float32)


def quantize_rows(x: np.ndarray, asymmetric: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quantize each row of 2-D float `x` to int8 as TFLite's hybrid kernels do: returns
    (q int32, scale float32 per row, zero point int32 per row). All-zero rows get scale 1."""
    x = np.asarray(x, np.float32)
    rows = x.shape[0]
    if not asymmetric:
        rng = np.max(np.abs(x), axis=1) if x.size else np.zeros(rows, np.float32)
        zero = rng == 0
        safe = np.where(zero, np.float32(1), rng).astype(np.float32)
        inv = (np.float32(127) / safe).astype(np.float32)
        q = round_half_away(x * inv[:, None])
        q = np.clip(q, -127, 127).astype(np.int32)
        q[zero] = 0
        scale = np.where(zero, np.float32(1), safe / np.float32(127)).astype(np.float32)
        return q, scale, np.zeros(rows, np.int32)
    rmin = np.minimum(x.min(axis=1), 0).astype(np.float64)
    rmax = np.maximum(x.max(axis=1), 0).astype(np.float64)
    same = rmin == rmax
    scale = np.where(same, 1.0, (rmax - rmin) / 255.0)
    zp_min = -128.0 - rmin / scale
    zp_max = 127.0 - rmax / scale
    err_min = 128.0 + np.abs(rmin / scale)
    err_max = 127.0 + np.abs(rmax / scale)
    zp_d = np.where(err_min < err_max, zp_min, zp_max)
    zp = np.clip(round_half_away(zp_d), -128, 127).astype(np.int32)
    zp[same] = 0
    scale32 = scale.astype(np.float32)
    inv = (np.float32(1) / scale32).astype(np.float32)
    q = round_half_away(zp[:, None].astype(np.float32) + x * inv[:, None])
    q = np.clip(q, -128, 127).astype(np.int32)
    q[same] = 0
    return q, scale32, zp


def weight_scales(t, channels: int) -> np.ndarray:
    """The weight scale per output channel (a per-tensor scale repeated)."""
    s = np.asarray(t.quant.scale, np.float32).reshape(-1)
    return np.broadcast_to(s, (channels,)) if s.size == 1 else s


class HybridKernel(OpKernel):
    """Shared checks: float32 input/output, int8 constant weights with zero point 0."""

    weights_index = 1

    def check_weights(self, axis_channels: int, axis: int) -> np.ndarray:
        w = self.inputs[self.weights_index]
        if w is None or w.quant is None or w.buffer is None or w.dtype != I8:
            raise self.fail("hybrid kernel needs int8 constant weights with a scale")
        if np.any(np.asarray(w.quant.zero_point) != 0):
            raise self.fail("hybrid weights must be symmetric (zero point 0)")
        s = np.asarray(w.quant.scale).reshape(-1)
        if s.size not in (1, axis_channels) or (s.size > 1 and w.quant.axis != axis):
            raise self.fail(f"weight scales ({s.size} on axis {w.quant.axis}) must be per tensor "
                            f"or per channel on axis {axis}")
        if self.outputs[0].dtype != F32:
            raise self.fail("hybrid kernels write float32 outputs")
        return weight_scales(w, axis_channels)


def rescale(acc: np.ndarray, zp: np.ndarray | None, row_sums: np.ndarray, in_scale: np.ndarray,
            w_scale) -> np.ndarray:
    """float32 result of the int accumulators `acc` (rows x channels) of quantized input rows
    (scale `in_scale`, zero point `zp` per row, or None when symmetric) times the int8 weights
    (row sums `row_sums`, scale `w_scale` per channel or one)."""
    if zp is not None:
        acc = acc - zp[:, None].astype(np.int64) * row_sums[None, :]
    mult = (in_scale[:, None] * np.reshape(w_scale, (1, -1))).astype(np.float32)
    return acc.astype(np.float32) * mult
