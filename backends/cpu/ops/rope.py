"""Circle's ROPE (onert cker RoPE.h), GPT-NeoX mode. Parameters and validation:
core/ops/rope.py."""
from __future__ import annotations

from ....core.ops.rope import RoPEBase
from .common import register


@register("RoPE")
class RoPELayer(RoPEBase):
    """GPT-NeoX rotary embedding over the last axis D (even), halves h = D/2:
    y[:h] = x[:h] * cos[:h] - x[h:] * sin[:h];  y[h:] = x[:h] * sin[h:] + x[h:] * cos[h:].
    The sin/cos tables broadcast against the input (onert's cker takes (1, 1, 1, D) tables;
    tables with a position axis, e.g. (1, 1, S, D), apply row by row)."""

    def run(self) -> None:
        x, sin, cos, y = self.buf(0), self.buf(1), self.buf(2), self.out
        h = x.shape[-1] // 2
        x0, x1 = x[..., :h], x[..., h:]
        y[..., :h] = x0 * cos[..., :h] - x1 * sin[..., :h]
        y[..., h:] = x0 * sin[..., h:] + x1 * cos[..., h:]
