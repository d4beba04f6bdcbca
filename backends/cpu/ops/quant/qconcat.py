"""Quantized CONCATENATION and PACK (int8, uint8, int16): TFLite's checks and uint8
requantization constants are core/ops/concat.py's (concatenation.cc, pack.cc). CONCATENATION
requantizes the uint8 inputs whose parameters differ from the output's, then concatenates;
PACK copies. Float forms: backends/cpu/ops/concat.py."""
from __future__ import annotations

from .....core.ops.concat import QConcatBase, QPackBase, requantize
from ..concat import ConcatLayer, PackLayer
from .base import quantized, register


@register("Concat", when=quantized)
class QConcatLayer(QConcatBase, ConcatLayer):
    def run(self) -> None:
        for t, s, bias, buf in self.requantized:
            requantize(t.buffer, s, bias, self.zp, out=buf)
        ConcatLayer.run(self)       # act is None: refused in validate


@register("Pack", when=quantized)
class QPackLayer(QPackBase, PackLayer):
    pass
