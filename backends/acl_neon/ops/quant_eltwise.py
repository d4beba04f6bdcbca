"""Quantized 8-bit ADD/SUB/MUL and TANH/LOGISTIC on acl_neon (module _quant).

The validation and the precomputation are core/ops's (binary_arithmetic.QAddSubBase, QMulBase;
elementwise_activation.QTanhBase, QLogisticBase), the very code of the cpu kernels, so the
results are theirs: ADD/SUB of same-shape tensors are computed directly (csrc/quant/qadd.h);
broadcast ADD/SUB and MUL gather from the 65536-pair tables (core/quant/qpairtable.py: the exact
arithmetic evaluated on every pair of input values, per loop kind of TFLite's kernel); TANH and
LOGISTIC gather from the 256-entry tables, as does QUANTIZE between 8-bit types
(core/ops/quantize.py). Float forms: eltwise.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.binary_arithmetic import QAddSubBase, QMulBase
from ....core.ops.elementwise_activation import QLogisticBase, QTanhBase
from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8, U8
from ....core.ops.quantize import LANES, QuantizeBase
from ....core.quant.qmath import vector_part
from .base import QuantNeon, register, size


def broadcast_strides(in_shape, out_shape) -> list[int]:
    """Element strides of a C-contiguous `in_shape` broadcast to the 4-D form of `out_shape`
    (0 along broadcast axes)."""
    ins = (1,) * (4 - len(in_shape)) + tuple(int(v) for v in in_shape)
    outs = (1,) * (4 - len(out_shape)) + tuple(int(v) for v in out_shape)
    strides, acc = [0] * 4, 1
    for ax in range(3, -1, -1):
        strides[ax] = acc if ins[ax] == outs[ax] and ins[ax] != 1 else 0
        acc *= ins[ax]
    return strides


class _NeonTabulated(QuantNeon):
    """The core base's pair table, gathered natively (8-bit inputs, rank <= 4): a plan over
    inputs 0 and 1 into output 0."""

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and len(graph.operands[op.outputs[0]].shape) > 4:
            return False, f"acl_neon quantized {op.subtype}: rank above 4"
        return ok, why

    def prepare(self) -> None:
        super().prepare()                       # the loop kinds of this shape
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        out4 = (1,) * (4 - len(y.shape)) + tuple(int(v) for v in y.shape)
        kinds = None if self.kinds is None else np.ascontiguousarray(
            np.broadcast_to(self.kinds, y.shape), U8).reshape(-1)
        table = np.ascontiguousarray(self.table).view(U8).reshape(-1)
        self.plan = self.lib.QBinaryPlan(table, kinds, list(out4),
                                        broadcast_strides(a.shape, y.shape),
                                        broadcast_strides(b.shape, y.shape))

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]


def add_params(k) -> dict:
    """The native AddPlan parameters of a validated quantized ADD/SUB kernel `k`."""
    width, shift_first = (0, False) if k.vec_flags is None else k.vec_flags[:2]
    return {"zp1": k.zp1, "zp2": k.zp2, "zpo": k.zpo, "m1": k.m1, "e1": k.e1, "m2": k.m2,
            "e2": k.e2, "mo": k.mo, "eo": k.eo, "lo": k.lo, "hi": k.hi, "sub": k.sub,
            "signed": k.inputs[0].dtype == I8, "shift_first": bool(shift_first),
            "width": int(width)}


@register("BinaryArithmetic.ADD", "BinaryArithmetic.SUB", when=quantized)
class QAddSubLayer(_NeonTabulated, QAddSubBase):
    """Same-shape operands: the arithmetic computed directly (csrc/quant/qadd.h: the optimized
    ADD's vector lanes on the first n - n % width elements, the scalar code on the rest; SUB
    scalar throughout); broadcast shapes gather from the pair tables."""

    def prepare(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if tuple(a.shape) == tuple(b.shape) == tuple(y.shape) and not self.pot \
                and self.left_shift == 20:
            self.plan = self.lib.QAddPlan(size(y.shape), add_params(self))
        else:
            super().prepare()


@register("BinaryArithmetic.MUL", when=quantized)
class QMulLayer(_NeonTabulated, QMulBase):
    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and graph.operands[op.outputs[0]].dtype != graph.operands[op.inputs[0]].dtype:
            return False, "acl_neon quantized MUL needs the output type of its inputs"
        return ok, why


class _NeonLut(QuantNeon):
    """The core base's 256-entry table, looked up natively."""

    def prepare(self) -> None:
        table8 = np.ascontiguousarray(self.table).view(U8).reshape(-1)
        self.plan = self.lib.Lut8Plan(table8, size(self.inputs[0].shape))


@register("ElementwiseActivation.TANH", when=quantized)
class QTanhLayer(_NeonLut, QTanhBase):
    pass


@register("ElementwiseActivation.LOGISTIC", when=quantized)
class QLogisticLayer(_NeonLut, QLogisticBase):
    pass


@register("ElementwiseUnary.QUANTIZE", dtypes=(I8, U8))
class QQuantizeLayer(_NeonLut, QuantizeBase):
    """Requantization between 8-bit types (core/ops/quantize.py): a 256-entry table of the
    exact arithmetic. TFLite rounds the first multiple of 16 elements with its vector rounding
    and the rest with the scalar one; one table serves when the two agree on every value or
    when only one of them applies to this size, else the op stays on cpu."""

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and graph.operands[op.outputs[0]].dtype not in (I8, U8):
            return False, "acl_neon requantizes to int8/uint8 only"
        return ok, why

    def validate(self) -> None:
        super().validate()
        n = size(self.inputs[0].shape)
        k = vector_part(n, LANES)
        vec, sca = self.requant_table(True), self.requant_table(False)
        if k == 0 or np.array_equal(vec, sca):
            self.table = sca
        elif k == n:
            self.table = vec
        else:
            raise self.fail("acl_neon: this size mixes TFLite's two roundings, which differ "
                            "here (cpu runs it)")
