"""Hybrid (dynamic-range quantized) kernels: float32 input/output, int8 constant weights with a
per-tensor or per-channel scale, as the TFLite converter's dynamic-range quantization writes.

TFLite's hybrid kernels quantize the float input to int8 at run time (per batch row for
FULLY_CONNECTED and BATCH_MATMUL, per image for CONV_2D), symmetric (scale = max|x| / 127, values
in [-127, 127]) or, with `asymmetric_quantize_inputs`, asymmetric (range [min(x, 0), max(x, 0)]
over [-128, 127] with a nudged zero point); they accumulate int8 x int8 products in int32 and
rescale by input scale x weight scale. These kernels do the same integer arithmetic (exact in
int64), so they match the interpreter up to float rounding of the final rescale.

Each class is registered under its op's key for the hybrid form (`when=hybrid`,
core/ops/forms.py); the float kernel runs the op's other forms. FULLY_CONNECTED is here, the
convolutions, BATCH_MATMUL and EMBEDDING_LOOKUP in hybrid_more, the recurrent ops in
hybrid_rnn and SVDF in hybrid_svdf.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid
from .common import activation, register
from .hybrid_base import HybridKernel, quantize_rows, rescale


@register("FullyConnected", when=hybrid)
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
