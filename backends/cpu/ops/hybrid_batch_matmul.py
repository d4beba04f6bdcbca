"""Hybrid BATCH_MATMUL: a float32 LHS times an int8 constant RHS with a per-tensor scale. Each
row of the LHS is quantized at run time (asymmetric with `asymmetric_quantize_inputs`, else
symmetric: hybrid_base.quantize_rows), as TFLite's batch_matmul.cc EvalHybrid does.

Float form: batch_matmul.py; quantized form: quant/qbatch_matmul.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid
from .common import register
from .hybrid_base import HybridKernel, quantize_rows


@register("BatchMatMul", when=hybrid)
class HybridBatchMatMulLayer(HybridKernel):
    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise self.fail(f"operands must be at least 2-D, got {a.shape} and {b.shape}")
        p = self.op.params
        self.adj_x, self.adj_y = bool(p.get("adj_x", False)), bool(p.get("adj_y", False))
        if np.asarray(b.quant.scale).size != 1:
            raise self.fail("hybrid BatchMatMul needs a per-tensor RHS scale")
        self.wscale = self.check_weights(1, 0)
        self.asym = bool(p.get("asymmetric_quantize_inputs", False))
        rhs = b.buffer.astype(np.int64)
        self.rhs = np.swapaxes(rhs, -1, -2) if self.adj_y else rhs   # (..., K, N)
        self.col_sums = self.rhs.sum(axis=-2)                         # (..., N)

    def run(self) -> None:
        a = self.buf(0)
        if self.adj_x:
            a = np.swapaxes(a, -1, -2)
        k = a.shape[-1]
        q, s, zp = quantize_rows(np.ascontiguousarray(a).reshape(-1, k), self.asym)
        q = q.reshape(a.shape).astype(np.int64)
        acc = np.matmul(q, self.rhs)
        if self.asym:
            acc = acc - zp.reshape(a.shape[:-1])[..., None].astype(np.int64) * \
                self.col_sums[..., None, :]
        mult = (s.reshape(a.shape[:-1]) * self.wscale[0]).astype(np.float32)
        np.copyto(self.out, acc.astype(np.float32) * mult[..., None])
