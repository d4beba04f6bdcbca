"""BATCH_MATMUL (float32): np.matmul into the output buffer, adjoints as transposed views.
Checks: core/ops/batch_matmul.py (BatchMatMulBase).

Quantized form: quant/qbatch_matmul.py; hybrid form: hybrid_batch_matmul.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.batch_matmul import BatchMatMulBase
from .common import register


@register("BatchMatMul")
class BatchMatMulLayer(BatchMatMulBase):
    def prepare(self) -> None:
        a, b = self.buf(0), self.buf(1)
        self.a = np.swapaxes(a, -1, -2) if self.op.params.get("adj_x", False) else a
        self.b = np.swapaxes(b, -1, -2) if self.op.params.get("adj_y", False) else b

    def run(self) -> None:
        np.matmul(self.a, self.b, out=self.out)
