"""PRELU on cpu: x >= 0 ? x : x * alpha, alpha broadcast against x (float32). Shared with the
other backends: core/ops/prelu.py. Quantized form: quant/qprelu.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.prelu import PReLUBase
from .common import register


@register("PReLU")
class PReLULayer(PReLUBase):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.multiply(x, self.inputs[1].buffer, out=out)
        np.copyto(out, x, where=x >= 0)
