"""RESHAPE, SQUEEZE, EXPAND_DIMS on acl_neon: the bytes move unchanged (a native threaded
copy); checks: core/ops/reshape.py."""
from __future__ import annotations

from ....core.ops.reshape import ReshapeBase
from .base import NeonMixin, register


@register("Reshape", "Squeeze", "ExpandDims")
class ReshapeLayer(NeonMixin, ReshapeBase):
    float_only = False

    def run(self) -> None:
        self.lib.copy(self.inputs[0].buffer, self.outputs[0].buffer, self.threads)
