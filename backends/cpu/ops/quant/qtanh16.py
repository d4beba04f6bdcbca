"""Quantized int16 TANH and LOGISTIC at any input scale, bit-exact with the interpreter: the
checks and the table of all 65536 results (TFLite's fixed-point path for power-of-two input
scales 2^-12 (and 2^-11 for TANH), its 256-entry sigmoid table path for every other scale) are
core/ops/elementwise_activation.py's QTanh16Base / QLogistic16Base; the run is one lookup.

8-bit TANH and LOGISTIC: qactivation.py; float form: backends/cpu/ops/elementwise.py.
"""
from __future__ import annotations

from .....core.ops.elementwise_activation import QLogistic16Base, QTanh16Base
from .....core.quant.qlut_math import lookup
from .base import I16, quantized, register


class Lookup16:
    """run(): the output is `table` looked up at every input value."""

    def run(self) -> None:
        lookup(self.table, self.inputs[0].buffer, out=self.outputs[0].buffer)


@register("ElementwiseActivation.TANH", dtypes=(I16,), when=quantized)
class QTanh16Layer(Lookup16, QTanh16Base):
    pass


@register("ElementwiseActivation.LOGISTIC", dtypes=(I16,), when=quantized)
class QLogistic16Layer(Lookup16, QLogistic16Base):
    pass
