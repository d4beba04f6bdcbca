"""Quantized 8-bit MEAN over one contiguous block of constant axes on acl_neon (module _quant:
csrc/quant/qmean.h): the constants of core/ops/reduce.py (QMeanBase: the optimized HW mean or
the reference QuantizedMeanOrSum), column sums and the exact rescale in native code (the
arithmetic of backends/cpu/ops/quant/qreduce.py QMeanLayer). Float form: reduce.py.
"""
from __future__ import annotations

from ....core.exec.native import slot_of
from ....core.ops.forms import quantized
from ....core.ops.movement import ints
from ....core.ops.quant_base import I8
from ....core.ops.reduce import QMeanBase, normalized_axes
from ....core.quant import qmath
from .base import QuantNeon, register, size


def blocks(shape, axes) -> tuple[int, int, int]:
    """(outer, count, inner): `shape` viewed as [outer][count][inner] around the contiguous
    block of (normalized, ascending) `axes`."""
    return size(shape[:axes[0]]), size(shape[axes[0]:axes[-1] + 1]), size(shape[axes[-1] + 1:])


def mean_layout(graph, op):
    """(outer, count, inner) of a MEAN over constant axes forming one contiguous block of the
    input's shape, or a reason it has none."""
    x, ax = graph.operands[op.inputs[0]], graph.operands[op.inputs[1]]
    if not ax.is_constant:
        return None, "acl_neon quantized MEAN needs constant axes"
    shape = [int(d) for d in x.shape]
    try:
        axes = normalized_axes(ints(ax.data), len(shape))
    except ValueError as e:
        return None, str(e)
    if not axes or list(axes) != list(range(axes[0], axes[-1] + 1)):
        return None, "acl_neon quantized MEAN reduces one contiguous block of axes"
    layout = blocks(shape, axes)
    if layout[1] < 1 or layout[1] * 510 >= 1 << 31:
        return None, "acl_neon quantized MEAN: reduced count out of range"
    return layout, ""


@register("Reduce.MEAN", when=quantized)
class QMeanLayer(QuantNeon, QMeanBase):
    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        layout, why = mean_layout(graph, op)
        return layout is not None, why

    def prepare(self) -> None:
        super().prepare()
        x = self.inputs[0]
        axes, (hw, m, s, offset) = self.plan
        outer, count, inner = blocks(tuple(x.shape), axes)
        vec = qmath.vector_part(inner, 16) if hw else 0     # as cpu's QMeanLayer.reduce
        self.native = self.lib.QMeanPlan(outer, count, inner, {
            "signed": x.dtype == I8, "hw": bool(hw), "m": int(m), "shift": int(s),
            "offset": int(offset), "out_zp": self.out_zp, "lo": self.lo, "hi": self.hi,
            "vec": vec})

    def bind(self):
        # self.plan is QMeanBase's (axes, constants): the native plan is self.native
        return self.native.bind(slot_of(self.inputs[0]), slot_of(self.outputs[0]), self.threads)
