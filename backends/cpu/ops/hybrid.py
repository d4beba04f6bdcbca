"""Hybrid (dynamic-range quantized) kernels: float32 input/output, int8 constant weights with a
per-tensor or per-channel scale, as the TFLite converter's dynamic-range quantization writes.

TFLite's hybrid kernels quantize the float input to int8 at run time (per batch row for
FULLY_CONNECTED and BATCH_MATMUL, per image for CONV_2D), symmetric (scale = max|x| / 127, values
in [-127, 127]) or, with `asymmetric_quantize_inputs`, asymmetric (range [min(x, 0), max(x, 0)]
over [-128, 127] with a nudged zero point); they accumulate int8 x int8 products in int32 and
rescale by input scale x weight scale. These kernels do the same integer arithmetic (exact in
int64), so they match the interpreter up to float rounding of the final rescale.

The classes are not registered under the float kernels' keys (one class per key): a float
kernel's owner routes an op here when `is_hybrid(op, graph)` (see hybrid_kernel_for:
HYBRID_KERNELS here, hybrid_rnn.HYBRID_RNN_KERNELS for the recurrent ops).
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from .common import CpuKernel, activation
from .hybrid_base import F32, I8, HybridKernel, quantize_rows, rescale
from .hybrid_more import (HybridBatchMatMul, HybridConv2D, HybridDepthwiseConv2D,
                          HybridEmbeddingLookup)
from .hybrid_rnn import HYBRID_RNN_KERNELS


def is_hybrid(op: Operation, graph: Graph, weights: int = 1) -> bool:
    """Whether `op` is a hybrid op: float32 input 0 and an int8 constant with a scale at
    input `weights`."""
    if len(op.inputs) <= weights or op.inputs[0] < 0 or op.inputs[weights] < 0:
        return False
    x, w = graph.operands[op.inputs[0]], graph.operands[op.inputs[weights]]
    return x.dtype == F32 and w.dtype == I8 and w.is_constant and w.quant is not None


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
        y = rescale(acc, zp if self.asym else None, self.row_sums, s, self.wscale)
        bias = self.buf(2)
        if bias is not None:
            y += bias
        out = self.out.reshape(y.shape)
        np.copyto(out, y)
        if self.act is not None:
            self.act(out)


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
    entry = HYBRID_KERNELS.get(op.type) or HYBRID_RNN_KERNELS.get(op.type)
    if entry is None:
        return None
    cls, widx = entry
    if op.type == "EmbeddingLookup":
        ok = (len(op.inputs) > 1 and op.inputs[1] >= 0
              and graph.operands[op.inputs[1]].dtype == I8
              and graph.operands[op.inputs[1]].quant is not None)
        return cls if ok else None
    return cls if is_hybrid(op, graph, widx) else None
