"""TRANSPOSE on acl_neon: one native CopyPlan of the permuted input (see movement.py); the
permutation must be constant (core/ops/transpose.py checks it)."""
from __future__ import annotations

from ....core.ops.transpose import TransposeBase
from .base import register
from .movement import NeonMove


@register("Transpose")
class TransposeLayer(NeonMove, TransposeBase):
    const_inputs = (1,)

    def build(self) -> None:
        x, out = self.buf(0), self.out
        self.copy_plan([self.inputs[0]], [self.outputs[0]], [(0, 0, x.transpose(self.perm), out)])
