"""Circle's ROPE (rotary position embedding, Samsung ONE: onert cker RoPE.h): the parameters and
validation every backend shares. GPT-NeoX mode only (as onert): over the last axis D (even),
halves h = D/2; the sin / cos tables (inputs 1, 2) have the input's last dimension and
broadcast against it (onert's cker takes (1, 1, 1, D) tables; tables with a position axis, e.g.
(1, 1, S, D), apply row by row). Kernel: backends/cpu/ops/rope.py."""
from __future__ import annotations

import numpy as np

from .base import OpKernel

# RoPEMode values (by name from the loader; by number if an options table comes raw).
ROPE_MODES = {0: "GPT_NEOX", 1: "GPT_J", "GPT_NEOX": "GPT_NEOX", "GPT_J": "GPT_J"}


class RoPEBase(OpKernel):
    """ROPE: a 4-D input with an even last dimension, sin / cos tables that broadcast to it,
    mode GPT_NEOX."""

    def validate(self) -> None:
        x, s, c = self.inputs[0], self.inputs[1], self.inputs[2]
        if len(x.shape) != 4:
            raise self.fail(f"input must be 4-D, got {x.shape}")
        d = x.shape[-1]
        if d % 2:
            raise self.fail(f"the last dimension ({d}) must be even")
        for t, what in ((s, "sin_table"), (c, "cos_table")):
            if t.shape[-1] != d:
                raise self.fail(f"{what} last dimension {t.shape[-1]} != input's {d}")
            try:
                np.broadcast_shapes(tuple(t.shape), tuple(x.shape))
            except ValueError:
                raise self.fail(f"{what} {t.shape} does not broadcast to {x.shape}") from None
        mode = ROPE_MODES.get(self.op.params.get("mode", 0), self.op.params.get("mode"))
        if mode != "GPT_NEOX":
            raise self.fail(f"RoPE mode {mode} is not supported (onert implements GPT_NEOX)")


__all__ = ["ROPE_MODES", "RoPEBase"]
