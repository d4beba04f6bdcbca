"""uint8 CONCATENATION whose inputs' scales or zero points differ from the output's, on
acl_neon: core/ops/concat.py's validation and requantization constants (QConcatBase: TFLite's
ConcatenationWithScaling, float32 round(q * s + bias) + zp), tabulated over the 256 input codes
(`requant_table`: the same formula evaluated on every code, so bit-exact with it); one native
step (module _quant's QConcatPlan) writes each input's rows into their place in the output,
through its table (or copied where the input carries the output's parameters). Concatenations
whose inputs all carry the output's parameters are plain copies (concat.py's ConcatLayer).
"""
from __future__ import annotations

from ....core.exec.native import slot_of
from ....core.ops.concat import QConcatBase, requant_table
from ....core.ops.forms import quantized
from ....core.ops.quant_base import U8
from .base import QuantNeon, register, size
from .movement import NeonMove


def requantizing(op, graph) -> bool:
    """A quantized CONCATENATION with an input whose scale or zero point differs from the
    output's (the other quantized ones are plain copies: concat.ConcatLayer)."""
    return quantized(op, graph) and \
        not all(NeonMove.same_quant(graph, i, op.outputs[0]) for i in op.inputs)


@register("Concat", when=requantizing)
class QConcatLayer(QuantNeon, QConcatBase):
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
        """The output as [outer][row] around `axis`, each input as [outer][its row]."""
        y, axis = tuple(self.outputs[0].shape), self.axis
        shapes = [tuple(t.shape) for t in self.inputs]
        if any(len(s) != len(y) or s[:axis] != y[:axis] or s[axis + 1:] != y[axis + 1:]
               for s in shapes) or sum(size(s[axis:]) for s in shapes) != size(y[axis:]):
            raise self.fail(f"inputs {shapes} do not concatenate into {y} along axis {axis}")
        tables = [None if r is None else requant_table(r[0], r[1], self.zp)
                  for r in self.rescale]
        self.plan = self.lib.QConcatPlan(size(y[:axis]), [size(s[axis:]) for s in shapes],
                                         tables)

    def bind(self):
        return self.plan.bind([slot_of(t) for t in self.inputs], slot_of(self.outputs[0]),
                              self.threads)
