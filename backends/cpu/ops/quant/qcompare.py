"""Quantized comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) and
MAXIMUM / MINIMUM, as the interpreter computes them (probed exhaustively: every int8 and uint8
value pair, int16 samples, every broadcast form up to rank 7).

Comparisons (comparisons.cc ComparisonQuantized, reference kernels only, N-D broadcast):
each input is brought to a common fixed-point domain on its own,
    s_i = MultiplyByQuantizedMultiplierSmallerThanOneExp((q_i - zp_i) * 2^8, M_i, shift_i)
with (M_i, shift_i) = QuantizeMultiplier(scale_i) (the input's own scale, not a ratio), rounding
halves away from zero, and the op compares s_1 with s_2. The rescale loses precision: with small
scales distinct values compare EQUAL, exactly as in the interpreter. int8 and uint8 take this
path for all six ops; int16 takes it for EQUAL and NOT_EQUAL only, while int16 LESS, LESS_EQUAL,
GREATER and GREATER_EQUAL compare the raw int16 values, ignoring scales and zero points (both
probed). Input scales >= 1 are refused: TFLite's rescale then shifts by a negative amount
(undefined behaviour; a scale of 1.0 aborts the interpreter).

MAXIMUM / MINIMUM (maximum_minimum.cc): the raw stored integers are compared, whatever the
scales and zero points of the inputs and the output (the interpreter checks none of them), for
int8, uint8 and int16; the result is that raw value.

Both rescaled inputs are precomputed as tables over every value of the dtype (qlut_math.value_table), so
a run is two lookups and one NumPy comparison.

Float forms: backends/cpu/ops/elementwise.py (shared with the other backends:
core/ops/comparison.py, core/ops/elementwise_binary.py).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .....core.quant import qmath
from .....core.quant.qlut_math import lookup, value_table
from .base import I16, QuantOpKernel, is_quantized, quantized, register

COMPARE: dict[str, Callable] = {
    "EQUAL": np.equal, "NOT_EQUAL": np.not_equal, "LESS": np.less,
    "LESS_EQUAL": np.less_equal, "GREATER": np.greater, "GREATER_EQUAL": np.greater_equal}
COMPARISON_LEFT_SHIFT = 8
# int16 comparisons that the interpreter runs on the raw values (no rescale)
INT16_RAW = frozenset({"LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"})


def check_binary_operands(kernel: QuantOpKernel, what: str) -> None:
    """Two quantized per-tensor inputs of the same dtype (TF_LITE_ENSURE_TYPES_EQ)."""
    op, graph_inputs = kernel.op, kernel.inputs
    a, b = graph_inputs[0], graph_inputs[1]
    if a.dtype != b.dtype:
        raise kernel.fail(f"quantized {what} needs inputs of one type, not {a.dtype} and "
                          f"{b.dtype}")
    if b.quant is None:
        raise kernel.fail(f"quantized {what}: input {b.name!r} has no quantization parameters")
    if a.quant.per_channel or b.quant.per_channel:
        raise kernel.fail(f"quantized {op.subtype or op.type} is per-tensor only")


@register("Comparison", when=quantized)
class QComparisonLayer(QuantOpKernel):
    """Comparison of two quantized tensors into a bool tensor (see the module docstring)."""

    @classmethod
    def supports(cls, op, graph):
        if op.subtype not in COMPARE:
            return False, f"{cls.backend_id} has no quantized {op.subtype} kernel"
        if len(op.inputs) > 1 and not is_quantized(graph, op.inputs[1]):
            return False, f"quantized {op.subtype} needs both inputs quantized"
        return super().supports(op, graph)

    def validate(self) -> None:
        check_binary_operands(self, self.op.subtype)
        a, b = self.inputs[0], self.inputs[1]
        self.fn = COMPARE[self.op.subtype]
        self.tables = None
        if a.dtype == I16 and self.op.subtype in INT16_RAW:
            return                              # raw int16 comparison (as the interpreter)
        for t in (a, b):
            if self.scale(t) >= 1.0:
                raise self.fail(f"quantized {self.op.subtype}: input {t.name!r} has scale "
                                f"{self.scale(t)} >= 1, where TFLite's comparison rescale is "
                                f"undefined (the interpreter aborts on 1.0)")
        self.tables = tuple(self._table(t) for t in (a, b))

    def _table(self, t) -> np.ndarray:
        mult, shift = (int(v) for v in qmath.quantize_multiplier(self.scale(t)))
        zp = self.zero_point(t)

        def scaled(q):
            x = (q - zp) << COMPARISON_LEFT_SHIFT
            high = qmath.saturating_rounding_doubling_high_mul(x, mult)
            return qmath.rounding_divide_by_pot(high, -shift)
        return value_table(t.dtype, scaled, np.int32)

    def run(self) -> None:
        a, b = self.inputs[0].buffer, self.inputs[1].buffer
        out = self.outputs[0].buffer
        if self.tables is None:
            self.fn(a, b, out=out)
            return
        self.fn(lookup(self.tables[0], a), lookup(self.tables[1], b), out=out)


@register("ElementwiseBinary.MAXIMUM", "ElementwiseBinary.MINIMUM",
          when=quantized)
class QMaximumMinimumLayer(QuantOpKernel):
    """MAXIMUM / MINIMUM of the raw stored integers (the interpreter ignores the quantization
    parameters of both inputs and the output)."""

    def validate(self) -> None:
        check_binary_operands(self, self.op.subtype)
        y = self.outputs[0]
        if y.dtype != self.inputs[0].dtype:
            raise self.fail(f"quantized {self.op.subtype}: output {y.dtype} differs from the "
                            f"inputs' {self.inputs[0].dtype}")
        self.fn = np.maximum if self.op.subtype == "MAXIMUM" else np.minimum

    def run(self) -> None:
        self.fn(self.inputs[0].buffer, self.inputs[1].buffer, out=self.outputs[0].buffer)
