"""Hybrid (dynamic-range quantized) kernels: float32 input/output, int8 constant weights with a
per-tensor or per-channel scale, as the TFLite converter's dynamic-range quantization writes.

TFLite's hybrid kernels quantize the float input to int8 at run time (per batch row for
FULLY_CONNECTED and BATCH_MATMUL, per image for CONV_2D), symmetric (scale = max|x| / 127, values
in [-127, 127]) or, with `asymmetric_quantize_inputs`, asymmetric (range [min(x, 0), max(x, 0)]
over [-128, 127] with a nudged zero point); they accumulate int8 x int8 products in int32 and
rescale by input scale x weight scale. These kernels do the same integer arithmetic (exact in
int64), so they match the interpreter up to float rounding of the final rescale.

The classes are not registered under the float kernels' keys (one class per key): a float
kernel's owner routes an op here when `is_hybrid(op, graph)` (see HYBRID_KERNELS).
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from .common import CpuKernel, activation

I8 = np.dtype(np.int8)
F32 = np.dtype(np.float32)


def is_hybrid(op: Operation, graph: Graph, weights: int = 1) -> bool:
    """Whether `op` is a hybrid op: float32 input 0 and an int8 constant with a scale at
    input `weights`."""
    if len(op.inputs) <= weights or op.inputs[0] < 0 or op.inputs[weights] < 0:
        return False
    x, w = graph.operands[op.inputs[0]], graph.operands[op.inputs[weights]]
    return x.dtype == F32 and w.dtype == I8 and w.is_constant and w.quant is not None


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
        q = _round_away(x * inv[:, None])
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
    zp = np.clip(_round_away(zp_d), -128, 127).astype(np.int32)
    zp[same] = 0
    scale32 = scale.astype(np.float32)
    inv = (np.float32(1) / scale32).astype(np.float32)
    q = _round_away(zp[:, None].astype(np.float32) + x * inv[:, None])
    q = np.clip(q, -128, 127).astype(np.int32)
    q[same] = 0
    return q, scale32, zp


def _round_away(v: np.ndarray) -> np.ndarray:
    """Round half away from zero (C's round), which TFLite's quantizers use."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def weight_scales(t, channels: int) -> np.ndarray:
    """The weight scale per output channel (a per-tensor scale repeated)."""
    s = np.asarray(t.quant.scale, np.float32).reshape(-1)
    return np.broadcast_to(s, (channels,)) if s.size == 1 else s


class HybridKernel(CpuKernel):
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

    def rescale(self, acc: np.ndarray, xq_zp_rows: np.ndarray | None, row_sums: np.ndarray,
                in_scale: np.ndarray, w_scale: np.ndarray) -> np.ndarray:
        """float32 result of int accumulators (rows x channels)."""
        if xq_zp_rows is not None:
            acc = acc - xq_zp_rows[:, None].astype(np.int64) * row_sums[None, :]
        mult = (in_scale[:, None] * w_scale[None, :]).astype(np.float32)
        return acc.astype(np.float32) * mult


class HybridFullyConnected(HybridKernel):
    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 2:
            raise self.fail(f"weights must be 2-D, got {w.shape}")
        if int(np.prod(x.shape)) % w.shape[1]:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of {w.shape[1]}")
        self.wscale = self.check_weights(w.shape[0], 0)
        p = self.op.params
        self.asym = bool(p.get("asymmetric_quantize_inputs", False))
        self.act = activation(p.fused_activation_function)
        wq = w.buffer.astype(np.int64)
        self.wt = wq.T
        self.row_sums = wq.sum(axis=1)

    def run(self) -> None:
        w = self.inputs[1]
        x2d = self.buf(0).reshape(-1, w.shape[1])
        q, s, zp = quantize_rows(x2d, self.asym)
        acc = q.astype(np.int64) @ self.wt
        y = self.rescale(acc, zp if self.asym else None, self.row_sums, s, self.wscale)
        bias = self.buf(2)
        if bias is not None:
            y += bias
        out = self.out.reshape(y.shape)
        np.copyto(out, y)
        if self.act is not None:
            self.act(out)


from .hybrid_more import (HybridBatchMatMul, HybridConv2D, HybridDepthwiseConv2D,  # noqa: E402
                          HybridEmbeddingLookup)

#: IR op type -> (hybrid kernel class, index of the int8 weights input)
HYBRID_KERNELS: dict[str, tuple[type[CpuKernel], int]] = {
    "FullyConnected": (HybridFullyConnected, 1),
    "Conv2D": (HybridConv2D, 1),
    "DepthwiseConv2D": (HybridDepthwiseConv2D, 1),
    "BatchMatMul": (HybridBatchMatMul, 1),
    "EmbeddingLookup": (HybridEmbeddingLookup, 1),
}

__all__ = ["HYBRID_KERNELS", "HybridFullyConnected", "HybridConv2D", "HybridDepthwiseConv2D",
           "HybridBatchMatMul", "HybridEmbeddingLookup", "is_hybrid", "quantize_rows",
           "hybrid_kernel_for"]


def hybrid_kernel_for(op: Operation, graph: Graph) -> type[CpuKernel] | None:
    """The hybrid kernel class for `op`, or None when `op` is not a hybrid op."""
    entry = HYBRID_KERNELS.get(op.type)
    if entry is None:
        from .hybrid_rnn import HYBRID_RNN_KERNELS   # LSTM / RNN families (imports this module)
        entry = HYBRID_RNN_KERNELS.get(op.type)
    if entry is None:
        return None
    cls, widx = entry
    if op.type == "EmbeddingLookup":
        ok = (len(op.inputs) > 1 and op.inputs[1] >= 0
              and graph.operands[op.inputs[1]].dtype == I8
              and graph.operands[op.inputs[1]].quant is not None)
        return cls if ok else None
    return cls if is_hybrid(op, graph, widx) else None
