"""Quantized 8-bit pooling on acl_neon (module _quant): TFLite's integer average (valid taps,
halves away from zero) and maximum, computed natively. The results are the cpu kernels'.
Quantized ADD/SUB/MUL and TANH/LOGISTIC: quant_eltwise.py.
"""
from __future__ import annotations

from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8
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
