"""PRELU. (AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D: pool2d.py; RESIZE_BILINEAR,
RESIZE_NEAREST_NEIGHBOR: resize.py.)"""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, register


@register("PReLU")
class PReLULayer(CpuKernel):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        np.multiply(x, self.inputs[1].buffer, out=out)
        np.copyto(out, x, where=x >= 0)
