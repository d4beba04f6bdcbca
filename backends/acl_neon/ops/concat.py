"""CONCATENATION and PACK on acl_neon: one native CopyPlan of the inputs into their slices of
the output (see movement.py); parameters and checks are core/ops/concat.py's. Quantized inputs
with the output's parameters are copied here; uint8 CONCATENATION inputs with other parameters
are requantized by quant_concat.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.concat import ConcatBase, PackBase, QConcatBase, QPackBase
from .base import register
from .movement import NeonMove


def concat_views(srcs: list, out: np.ndarray, axis: int) -> list[tuple]:
    """(input position, input array, the output slice it fills) per input of a concatenation
    along `axis`; ValueError when the inputs do not fill the output exactly."""
    views, start = [], 0
    lead = (slice(None),) * axis
    for k, src in enumerate(srcs):
        n = src.shape[axis] if src.ndim else 1
        views.append((k, src, out[lead + (slice(start, start + n),)]))
        start += n
    if start != (out.shape[axis] if out.ndim else 1):
        raise ValueError(f"inputs fill {start} of the output's {out.shape[axis]} along axis "
                         f"{axis}")
    return views


@register("Concat")
class ConcatLayer(NeonMove, ConcatBase):
    quantized = True      # the quantized forms are sorted out in quant_copy
    quantized_form = QConcatBase
    requant_refusal = ("acl_neon requantizes uint8 CONCATENATION inputs only (quant_concat); "
                       "int8/int16 inputs with other parameters run on cpu")

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and op.params.get("fused_activation_function") not in (None, "NONE"):
            return False, "acl_neon CONCATENATION has no fused activation"
        return ok, why

    def build(self) -> None:
        srcs = [t.buffer for t in self.inputs]
        steps = [(k, 0, src, dst) for k, src, dst in concat_views(srcs, self.out, self.axis)]
        self.copy_plan(list(self.inputs), [self.outputs[0]], steps)


@register("Pack")
class PackLayer(NeonMove, PackBase):
    quantized_form = QPackBase
    requant_refusal = "acl_neon packs quantized tensors only with the output's parameters"

    def build(self) -> None:
        out = self.out
        axis = self.axis % out.ndim
        lead = (slice(None),) * axis
        steps = [(k, 0, t.buffer, out[lead + (k,)]) for k, t in enumerate(self.inputs)]
        self.copy_plan(list(self.inputs), [self.outputs[0]], steps)
