"""SOFTMAX / LOG_SOFTMAX on float tensors, over the last axis. Parameters: core/ops/softmax.py.
Quantized forms: backends/cpu/ops/quant/qsoftmax.py (8-bit SOFTMAX), qsoftmax16.py (int16
SOFTMAX), qlogsoftmax.py (8-bit LOG_SOFTMAX)."""
from __future__ import annotations

import numpy as np

from ....core.ops.softmax import SoftmaxBase
from .common import register


@register("Softmax")
class SoftmaxLayer(SoftmaxBase):
    def prepare(self) -> None:
        x = self.buf(0)
        self.beta = np.float32(self.beta_param())
        self.mx = np.empty(x.shape[:-1] + (1,), x.dtype)
        self.sm = np.empty_like(self.mx)

    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.max(x, axis=-1, keepdims=True, out=self.mx)
        np.subtract(x, self.mx, out=out)
        if self.beta != 1:
            np.multiply(out, self.beta, out=out)
        np.exp(out, out=out)
        np.sum(out, axis=-1, keepdims=True, out=self.sm)
        np.divide(out, self.sm, out=out)


@register("LogSoftmax")
class LogSoftmaxLayer(SoftmaxLayer):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.max(x, axis=-1, keepdims=True, out=self.mx)
        np.subtract(x, self.mx, out=out)
        np.sum(np.exp(out), axis=-1, keepdims=True, out=self.sm)
        np.log(self.sm, out=self.sm)
        np.subtract(out, self.sm, out=out)
