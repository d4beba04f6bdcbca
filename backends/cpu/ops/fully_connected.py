"""FULLY_CONNECTED (float32): np.matmul into the output buffer, weights read transposed in place
(no copy). Checks: core/ops/fully_connected.py (FullyConnectedBase).

Quantized form: quant/qfully_connected.py; hybrid form: hybrid_fully_connected.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.fully_connected import FullyConnectedBase
from .common import register


@register("FullyConnected")
class FullyConnectedLayer(FullyConnectedBase):
    def prepare(self) -> None:
        w = self.buf(1)
        self.x2d = self.buf(0).reshape(-1, w.shape[1])
        self.wt = w.T
        self.bias = self.buf(2)
        self.y2d = self.out.reshape(self.x2d.shape[0], w.shape[0])

    def run(self) -> None:
        np.matmul(self.x2d, self.wt, out=self.y2d)
        if self.bias is not None:
            self.y2d += self.bias
        if self.act is not None:
            self.act(self.y2d)
