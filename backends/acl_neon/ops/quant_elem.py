"""Quantized 8-bit pooling and TANH/LOGISTIC on acl_neon (module _quant).

Pooling computes TFLite's integer average (valid taps, halves away from zero) and maximum
natively; TANH and LOGISTIC gather from the cpu kernels' 256-entry tables. The results are the
cpu kernels'. Quantized ADD/SUB/MUL: quant_eltwise.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8, U8
from ...cpu.ops.quant.qlut import QLogistic, QTanh
from ...cpu.ops.quant.qpool import QAveragePool2D, QMaxPool2D
from .base import conv_geometry, register
from .quant import QuantNeon


class _NeonQPool(QuantNeon):
    average = False

    def prepare(self) -> None:
        x, y, p = self.inputs[0], self.outputs[0], self.op.params
        geom = list(conv_geometry(p, x.shape, (p.filter_height, p.filter_width), y.shape,
                                  dilated=False))
        self.plan = self.lib.PoolPlan(geom, x.dtype == I8, self.average, self.lo, self.hi)


@register("Pool2D.AVERAGE_POOL_2D", when=quantized)
class NeonQAveragePool2D(_NeonQPool, QAveragePool2D):
    average = True


@register("Pool2D.MAX_POOL_2D", when=quantized)
class NeonQMaxPool2D(_NeonQPool, QMaxPool2D):
    pass


class _NeonLut(QuantNeon):
    def prepare(self) -> None:
        self.table8 = np.ascontiguousarray(self.table).view(U8).reshape(-1)

    def run(self) -> None:
        self.lib.lut8(self.table8, self.inputs[0].buffer, self.outputs[0].buffer, self.threads)


@register("ElementwiseActivation.TANH", when=quantized)
class NeonQTanh(_NeonLut, QTanh):
    pass


@register("ElementwiseActivation.LOGISTIC", when=quantized)
class NeonQLogistic(_NeonLut, QLogistic):
    pass
