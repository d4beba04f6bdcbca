"""FILL: the value everywhere in the output (whose shape is the dims input's; core/ops/fill.py)."""
from __future__ import annotations

from ....core.ops.fill import FillBase
from .common import register


@register("Fill")
class FillLayer(FillBase):
    """inputs (dims, value): the output (of shape dims) holds value everywhere."""

    def run(self) -> None:
        self.outputs[0].buffer[...] = self.buf(1).reshape(())
