"""Hybrid FULLY_CONNECTED: float32 input and output, int8 constant weights [units, depth] with a
per-tensor or per-channel (axis 0) scale. Each row of the flattened input is quantized at run time
(symmetric, or asymmetric with `asymmetric_quantize_inputs`: hybrid_base.quantize_rows), the
int8 products are accumulated exactly and rescaled by input scale x weight scale, as TFLite's
fully_connected.cc EvalHybrid does.

Float form: fully_connected.py; quantized form: quant/qfully_connected.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid
from .common import activation, register
from .hybrid_base import HybridKernel, quantize_rows, rescale


@register("FullyConnected", when=hybrid)
class HybridFullyConnectedLayer(HybridKernel):
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
