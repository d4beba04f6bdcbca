"""Softmax and LogSoftmax on float32 (data.cl softmax_rows, one work item per row of the last
axis; semantics of core/ops/softmax.py). Quantized Softmax: quant_softmax.py."""
from __future__ import annotations

import numpy as np

from .common import ClKernel, register


@register("Softmax", "LogSoftmax")
class SoftmaxLayer(ClKernel):
    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        cols = x.shape[-1] if x.shape else 1
        rows = x.size // max(cols, 1)
        beta = np.float32(self.op.params.get("beta", 1.0)) if self.op.type == "Softmax" else \
            np.float32(1.0)
        self.launch(self.kernel("data.cl", "softmax_rows"), (rows,), None, x.buffer, y.buffer,
                    np.int32(cols), beta, np.int32(self.op.type == "LogSoftmax"), np.int32(rows))
