"""Reshape, Squeeze, ExpandDims: the bytes move unchanged (a native threaded copy)."""
from __future__ import annotations

from ...cpu.ops.reshape import ReshapeLayer
from .base import NeonMixin, register


class NeonCopy(NeonMixin):
    float_only = False

    def run(self) -> None:
        self.lib.copy(self.inputs[0].buffer, self.outputs[0].buffer, self.threads)


@register("Reshape", "Squeeze", "ExpandDims")
class NeonReshape(NeonCopy, ReshapeLayer):
    pass
