"""QUANTIZE on cpu: the checks and TFLite's (re)quantization arithmetic are core's
(core/ops/quantize.py QuantizeBase); this kernel runs them. DEQUANTIZE and the other unary ops:
backends/cpu/ops/elementwise.py, qunary.py."""
from __future__ import annotations

from .....core.ops.quantize import QuantizeBase
from .base import register


@register("ElementwiseUnary.QUANTIZE")
class QuantizeLayer(QuantizeBase):
    def run(self) -> None:
        self.fn(self.inputs[0].buffer, self.outputs[0].buffer)
