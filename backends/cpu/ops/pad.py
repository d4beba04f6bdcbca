"""PAD, PADV2 (the output filled with the padding value, the input copied into its interior)
and MIRROR_PAD (parameters and checks: core/ops/pad.py). Quantized PAD / PADV2:
backends/cpu/ops/quant/qmove.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked
from ....core.ops.pad import MirrorPadBase, PadBase
from .common import register


@register("Pad", "PadV2")
class PadLayer(PadBase):
    def run(self) -> None:
        interior = self.interior
        if interior is None:
            interior = self.interior_of(self.inputs[1].buffer.reshape(-1, 2).astype(np.int64))
        value = self.value if self.value is not None else self.buf(2).reshape(()).item()
        self.out.fill(value)
        np.copyto(interior, self.buf(0))


@register("MirrorPad")
class MirrorPadLayer(MirrorPadBase):
    """REFLECT leaves the edge out of the mirrored part, SYMMETRIC repeats it."""

    def run(self) -> None:
        x = self.buf(0)
        pads = self.buf(1).reshape(-1, 2).astype(np.int64)
        limit = 1 if self.mode == "symmetric" else 0
        for d, (lo, hi) in zip(x.shape, pads):
            if lo < 0 or hi < 0 or max(lo, hi) > d - 1 + limit:
                raise ValueError(f"mirror padding {pads.tolist()} too large for input {x.shape}")
        copy_checked(self.out, np.pad(x, [(int(a), int(b)) for a, b in pads], mode=self.mode))
