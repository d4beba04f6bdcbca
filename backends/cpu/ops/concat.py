"""CONCATENATION (with its fused activation) and PACK (parameters and checks:
core/ops/concat.py). Quantized forms: backends/cpu/ops/quant/qconcat.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.concat import ConcatBase, PackBase
from .common import register


@register("Concat")
class ConcatLayer(ConcatBase):
    def run(self) -> None:
        np.concatenate(self.srcs, axis=self.axis, out=self.out)
        if self.act is not None:
            self.act(self.out)


@register("Pack")
class PackLayer(PackBase):
    def run(self) -> None:
        np.stack(self.srcs, axis=self.axis, out=self.outputs[0].buffer)
