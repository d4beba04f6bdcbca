"""RESHAPE, SQUEEZE, EXPAND_DIMS on acl_neon: the bytes move unchanged (a native threaded
copy, module _core, bound to the tensors' slots); checks: core/ops/reshape.py."""
from __future__ import annotations

from ....core.ops.reshape import ReshapeBase
from .base import NeonMixin, register


@register("Reshape", "Squeeze", "ExpandDims")
class ReshapeLayer(NeonMixin, ReshapeBase):
    float_only = False

    def prepare(self) -> None:
        super().prepare()           # the input's elements fill the output's shape
        self.plan = self.lib.BytesPlan(self.out.nbytes)
