"""Transpose on acl_cl: a strided gather of the permuted input (movement.StridedGather)."""
from __future__ import annotations

from .common import register, strides_of
from .movement import StridedGather, gather_meta


@register("Transpose")
class TransposeLayer(StridedGather):
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        perm = [p % len(x.shape) for p in self.param_values(1)] if x.shape else []
        st = strides_of(x.shape)
        self.gather(gather_meta(y.shape, [st[p] for p in perm], [0] * len(perm), y.shape))
