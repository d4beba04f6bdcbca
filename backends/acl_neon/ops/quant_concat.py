"""uint8 CONCATENATION whose inputs' scales or zero points differ from the output's, on
acl_neon: core/ops/concat.py's validation and requantization constants (QConcatBase: TFLite's
ConcatenationWithScaling, float32 round(q * s + bias) + zp), tabulated over the 256 input codes
(`requant_table`: the same formula evaluated on every code, so bit-exact with it), applied
natively (lut8 of module _quant) into scratch copies, then one native strided copy (movement's
CopyPlan) into the output. Concatenations whose inputs all carry the output's parameters are
plain copies (concat.py's ConcatLayer).
"""
from __future__ import annotations

from ....core.ops.concat import QConcatBase, requant_table
from ....core.ops.forms import quantized
from ....core.ops.quant_base import U8
from .. import native
from .base import QuantNeon, register
from .concat import concat_views
from .movement import NeonMove, copy_steps


def requantizing(op, graph) -> bool:
    """A quantized CONCATENATION with an input whose scale or zero point differs from the
    output's (the other quantized ones are plain copies: concat.ConcatLayer)."""
    return quantized(op, graph) and \
        not all(NeonMove.same_quant(graph, i, op.outputs[0]) for i in op.inputs)


@register("Concat", when=requantizing)
class QConcatLayer(QuantNeon, QConcatBase):
    also_needs = ("movement",)       # the strided copy after the per-input tables

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        if graph.operands[op.outputs[0]].dtype != U8:
            return False, "acl_neon requantizes uint8 CONCATENATION inputs only"
        if op.params.get("fused_activation_function") not in (None, "NONE"):
            return False, "acl_neon CONCATENATION has no fused activation"
        return True, ""

    def prepare(self) -> None:
        QConcatBase.prepare(self)   # self.srcs: input buffers, scratch for the requantized
        self.tables = [None if r is None else requant_table(r[0], r[1], self.zp)
                       for r in self.rescale]
        out = self.outputs[0].buffer
        try:
            views = concat_views(self.srcs, out, self.axis)
        except ValueError as e:
            raise self.fail(str(e)) from None
        steps = [row for k, src, dst in views for row in copy_steps(k, 0, src, src, out, dst)]
        self.copy = native.module("movement").CopyPlan([a.nbytes for a in self.srcs],
                                                       [out.nbytes], steps)

    def run(self) -> None:
        srcs = []
        for t, table, scratch in zip(self.inputs, self.tables, self.srcs):
            if table is None:
                srcs.append(t.buffer)
            else:
                self.lib.lut8(table, t.buffer, scratch, self.threads)
                srcs.append(scratch)
        self.copy.run(srcs, [self.outputs[0].buffer], self.threads)
