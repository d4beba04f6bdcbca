"""Float32 elementwise ops on acl_neon (native group `eltwise`): BinaryArithmetic (ADD, SUB,
MUL, DIV with NumPy broadcasting and the fused clamp in the same pass), MAXIMUM / MINIMUM,
SquaredDifference, PReLU, the comparisons (bool out), the activations and the unary math
functions. Each kernel subclasses its op's core base (core/ops/binary_arithmetic.py,
elementwise_binary.py, squared_difference.py, prelu.py, comparison.py,
elementwise_activation.py, elementwise_unary.py: the validation every backend shares) and
builds a native plan in prepare(); run() is one native call. Integer and bool forms (registered
by dtype, so these keep float32): int_eltwise.py; quantized forms: quant_eltwise.py; other
dtypes and sub-types stay on cpu."""
from __future__ import annotations

import numpy as np

from ....core.ops.binary_arithmetic import BinaryArithmeticBase
from ....core.ops.comparison import ComparisonBase
from ....core.ops.elementwise_activation import ElementwiseActivationBase
from ....core.ops.elementwise_binary import ElementwiseBinaryBase
from ....core.ops.elementwise_unary import ElementwiseUnaryBase
from ....core.ops.prelu import PReLUBase
from ....core.ops.squared_difference import SquaredDifferenceBase
from ....core.backend import Kernel
from .. import native
from .base import F32, NeonMixin, clamp_range, register, size

BOOL = np.dtype(np.bool_)
MAX_RANK = 8


def _strides(shape: tuple[int, ...], rank: int) -> list[int]:
    """Element strides of a C-contiguous `shape` aligned right to `rank` dims, 0 where the
    dimension is 1 (broadcast)."""
    full = (1,) * (rank - len(shape)) + tuple(shape)
    out, acc = [0] * rank, 1
    for d in reversed(range(rank)):
        out[d] = 0 if full[d] == 1 else acc
        acc *= full[d]
    return out


def broadcast_strides(out_shape, *shapes) -> tuple[list[int], list[list[int]]]:
    """The output shape and each input's strides with size-1 output dims dropped and
    neighbouring dims merged where every input steps through them alike."""
    rank = len(out_shape)
    strides = [_strides(s, rank) for s in shapes]
    merged: list[list[int]] = []
    for d, n in enumerate(out_shape):
        if n == 1:
            continue
        steps = [st[d] for st in strides]
        if merged and all(m == x * n for m, x in zip(merged[-1][1:], steps)):
            merged[-1] = [merged[-1][0] * n, *steps]
        else:
            merged.append([n, *steps])
    if not merged:
        merged = [[1] + [0] * len(shapes)]
    shape, *per_input = (list(t) for t in zip(*merged))
    return shape, per_input


def broadcast_plan(a_shape, b_shape, out_shape) -> tuple[list[int], list[int], list[int]]:
    """broadcast_strides of two inputs: (shape, a's strides, b's strides)."""
    shape, (sa, sb) = broadcast_strides(out_shape, a_shape, b_shape)
    return shape, sa, sb


class NeonEltwise(NeonMixin):
    """A float32 elementwise op of `arity` inputs; `op_name` picks the native op among
    `known()` (the module's table named `table`)."""

    native_group = "eltwise"
    arity = 1
    table = "UNARY_OPS"
    out_dtype = F32

    @classmethod
    def op_name(cls, op) -> str:
        return op.subtype

    @classmethod
    def known(cls) -> list[str]:
        return list(getattr(native.module("eltwise"), cls.table))

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        name = cls.op_name(op)
        if name not in cls.known():
            return False, f"acl_neon has no {name} kernel"
        if any(graph.operands[i].dtype != F32 for i in op.inputs[:cls.arity]):
            return False, f"acl_neon {name} takes float32 only"
        if graph.operands[op.outputs[0]].dtype != cls.out_dtype:
            return False, f"acl_neon {name} gives {cls.out_dtype} only"
        return True, ""


class NeonBinaryBase(NeonEltwise):
    """A broadcasting binary op (the fused clamp in the same pass)."""

    arity = 2
    table = "BINARY_OPS"

    def prepare(self) -> None:
        a, b, out = self.inputs[0], self.inputs[1], self.outputs[0]
        shape, sa, sb = broadcast_plan(a.shape, b.shape, out.shape)
        if len(shape) > MAX_RANK:
            raise self.fail(f"acl_neon broadcasts at most {MAX_RANK} distinct dimensions")
        name = type(self).op_name(self.op)
        lo, hi = clamp_range(self.op.params.get("fused_activation_function")
                             if self.out_dtype == F32 else None)
        self.plan = self.lib.BinaryPlan(self.lib.BINARY_OPS.index(name), lo, hi, shape, sa, sb)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]


@register("BinaryArithmetic")
class BinaryArithmeticLayer(NeonBinaryBase, BinaryArithmeticBase):
    pass


@register("ClampedBinaryArithmetic")
class ClampedBinaryArithmeticLayer(BinaryArithmeticLayer):
    """ADD / SUB / MUL / DIV (params `arithmetic_type`) with the RELU, RELU6 or RELU_N1_TO_1
    that alone read its output as its fused clamp: one pass, the activation op's gone. Made by
    the compiler from acl_neon's proposal (folds.py, `propose_clamps`); the same native plan
    as BinaryArithmetic, so bit-identical to the two ops apart."""

    @classmethod
    def op_name(cls, op) -> str:
        return op.params.arithmetic_type


@register("ChannelPaddedAdd")
class ChannelPaddedAddLayer(NeonMixin, Kernel):
    """ADD(PAD(x), y), the PAD zero-extending x's last dim (`pad_lo` values before its `pad_len`,
    the rest after), with the ADD's clamp or the clamp activation after it: one pass, the
    padded tensor never written (MediaPipe's BlazeBlocks widen their residual this way). Made
    by the compiler from acl_neon's proposal (folds.py, `propose_channel_pads`); the native
    BinaryPlan computes each element as the ADD does on the padded tensor (+0.0 outside x's
    columns), so the results are bit-identical to the ops apart."""

    native_group = "eltwise"

    def prepare(self) -> None:
        p = self.op.params
        pad, add = p.fused_ops[0], p.fused_ops[1]
        other = add.inputs[1] if add.inputs[0] == pad.outputs[0] else add.inputs[0]
        self.y = self.inputs[self.op.inputs.index(other)]
        x, out = self.inputs[0], self.outputs[0]
        n = int(out.shape[-1])
        rows = size(out.shape) // n
        if tuple(self.y.shape) != tuple(out.shape) or size(x.shape) != rows * p.pad_len:
            raise self.fail(f"{tuple(x.shape)} padded to {tuple(out.shape)} does not add to "
                            f"{tuple(self.y.shape)}")
        lo, hi = clamp_range(p.get("fused_activation_function"))
        self.plan = self.lib.BinaryPlan.padded(self.lib.BINARY_OPS.index("ADD"), lo, hi, rows,
                                               n, p.pad_lo, p.pad_len)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.y, self.outputs[0]]


@register("ElementwiseBinary")
class ElementwiseBinaryLayer(NeonBinaryBase, ElementwiseBinaryBase):
    """MAXIMUM / MINIMUM (a > b ? a : b and a < b ? a : b, as TFLite)."""

    @classmethod
    def known(cls) -> list[str]:
        return ["MAXIMUM", "MINIMUM"]


@register("SquaredDifference")
class SquaredDifferenceLayer(NeonBinaryBase, SquaredDifferenceBase):
    @classmethod
    def op_name(cls, op) -> str:
        return "SquaredDifference"


@register("PReLU")
class PReLULayer(NeonBinaryBase, PReLUBase):
    """x >= 0 ? x : x * alpha, alpha broadcast against x."""

    @classmethod
    def op_name(cls, op) -> str:
        return "PReLU"

    def validate(self) -> None:
        super().validate()
        try:
            np.broadcast_shapes(self.inputs[0].shape, self.inputs[1].shape,
                                self.outputs[0].shape)
        except ValueError:
            raise self.fail(f"alpha {self.inputs[1].shape} does not broadcast to "
                            f"{self.outputs[0].shape}") from None


@register("Comparison")
class ComparisonLayer(NeonBinaryBase, ComparisonBase):
    out_dtype = BOOL


class NeonUnaryBase(NeonEltwise):
    def prepare(self) -> None:
        x = self.inputs[0]
        n = size(x.shape)
        if size(self.outputs[0].shape) != n:
            raise self.fail(f"output {self.outputs[0].shape} differs from input {x.shape}")
        alpha = float(self.op.params.get("alpha", 0.2))
        lib = self.lib
        self.plan = lib.UnaryPlan(lib.UNARY_OPS.index(type(self).op_name(self.op)), alpha, n)


@register("ElementwiseActivation")
class ElementwiseActivationLayer(NeonUnaryBase, ElementwiseActivationBase):
    @classmethod
    def op_name(cls, op) -> str:
        if op.subtype == "GELU" and op.params.get("approximate", False):
            return "GELU_TANH"
        return op.subtype


@register("ElementwiseUnary")
class ElementwiseUnaryLayer(NeonUnaryBase, ElementwiseUnaryBase):
    pass
