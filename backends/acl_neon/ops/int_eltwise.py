"""Integer and bool elementwise ops on acl_neon (native group `eltwise`,
csrc/eltwise/int_eltwise.cpp): ADD, SUB, MUL (int16/int32/int64, the fused clamp of TFLite's
CalculateActivationRange, wrapping around on overflow as the interpreter's kernels do), MAXIMUM /
MINIMUM (int8 to int64, uint8), the comparisons (bool out), LOGICAL_AND / LOGICAL_OR and
LOGICAL_NOT, with the dtypes each sub-type takes in core/ops/binary.py BINARY_DTYPES and
elementwise_unary.py UNARY_DTYPES. These are the small ops of control flow (loop counters,
conditions), so they are plain loops over the collapsed broadcast shape of eltwise.py's
broadcast_strides: what counts is that they run as native steps, not SIMD. Float32: eltwise.py;
quantized: quant_eltwise.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.binary_arithmetic import BinaryArithmeticBase
from ....core.ops.comparison import ComparisonBase
from ....core.ops.elementwise_binary import ElementwiseBinaryBase
from ....core.ops.elementwise_unary import ElementwiseUnaryBase
from .. import native
from .base import NeonMixin, clamp_range, register, size
from .eltwise import BOOL, MAX_RANK, broadcast_strides

INTS = ("int8", "uint8", "int16", "int32", "int64")
ARITH = ("int16", "int32", "int64")
BOOL_OUT = frozenset({"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
                      "LOGICAL_AND", "LOGICAL_OR"})


def int_clamp(activation: str | None, dtype: np.dtype) -> tuple[int, int]:
    """The fused clamp of an integer op, as TFLite's CalculateActivationRange<T>: RELU [0, max],
    RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], anything else the whole range of the type."""
    lo, hi = clamp_range(activation)
    info = np.iinfo(dtype)
    return int(max(lo, info.min)), int(min(hi, info.max))


class NeonIntBinary(NeonMixin):
    """A broadcasting integer or bool binary op among the native INT_BINARY_OPS (core base
    checks: one dtype on both inputs, shapes that broadcast, the dtypes of the sub-type)."""

    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        lib = native.module("eltwise")
        a, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if op.subtype not in lib.INT_BINARY_OPS or a.dtype.name not in lib.ELEM_TYPES:
            return False, f"acl_neon has no {a.dtype} {op.subtype} kernel"
        want = BOOL if op.subtype in BOOL_OUT else a.dtype
        if y.dtype != want:
            return False, f"acl_neon {op.subtype} of {a.dtype} gives {want} only"
        return True, ""

    def prepare(self) -> None:
        a, b, out = self.inputs[0], self.inputs[1], self.outputs[0]
        shape, (sa, sb) = broadcast_strides(out.shape, a.shape, b.shape)
        if len(shape) > MAX_RANK:
            raise self.fail(f"acl_neon broadcasts at most {MAX_RANK} distinct dimensions")
        lo, hi = (0, 1) if a.dtype == BOOL else int_clamp(
            self.op.params.get("fused_activation_function"), a.dtype)
        lib = self.lib
        self.plan = lib.IntBinaryPlan(lib.INT_BINARY_OPS.index(self.op.subtype),
                                      lib.ELEM_TYPES.index(a.dtype.name), lo, hi, shape, sa, sb)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]


@register("BinaryArithmetic.ADD", "BinaryArithmetic.SUB", "BinaryArithmetic.MUL", dtypes=ARITH)
class BinaryArithmeticLayer(NeonIntBinary, BinaryArithmeticBase):
    pass


@register("ElementwiseBinary.MAXIMUM", "ElementwiseBinary.MINIMUM", dtypes=INTS)
@register("ElementwiseBinary.LOGICAL_AND", "ElementwiseBinary.LOGICAL_OR")
class ElementwiseBinaryLayer(NeonIntBinary, ElementwiseBinaryBase):
    """MAXIMUM / MINIMUM (a > b ? a : b, a < b ? a : b) and LOGICAL_AND / LOGICAL_OR."""


@register("Comparison", dtypes=("bool", *INTS))
class ComparisonLayer(NeonIntBinary, ComparisonBase):
    pass


@register("ElementwiseUnary.LOGICAL_NOT")
class ElementwiseUnaryLayer(NeonMixin, ElementwiseUnaryBase):
    """LOGICAL_NOT of a bool tensor."""

    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and graph.operands[op.outputs[0]].dtype != BOOL:
            return False, "acl_neon LOGICAL_NOT gives bool only"
        return ok, why

    def prepare(self) -> None:
        n = size(self.inputs[0].shape)
        if size(self.outputs[0].shape) != n:
            raise self.fail(f"output {self.outputs[0].shape} differs from input "
                            f"{self.inputs[0].shape}")
        self.plan = self.lib.LogicalNotPlan(n)
