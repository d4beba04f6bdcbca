"""Quantized 8-bit Pool2D AVERAGE / MAX on acl_neon (module _quant): the validation of
core/ops/pool2d.py (QPool2DBase: the output carries the input's scale and zero point, the
activation clamp), TFLite's integer average (valid taps, halves away from zero) and maximum
computed natively; the results are those of backends/cpu/ops/quant/qpool.py. Float form:
pool2d.py.
"""
from __future__ import annotations

from ....core.ops.forms import quantized
from ....core.ops.pool2d import QPool2DBase
from ....core.ops.quant_base import I8
from ....core.ops.window import conv_geometry
from .base import QuantNeon, register


class QPool2DLayer(QuantNeon, QPool2DBase):
    average = False

    def prepare(self) -> None:
        x, y, p = self.inputs[0], self.outputs[0], self.op.params
        geom = list(conv_geometry(p, x.shape, (p.filter_height, p.filter_width), y.shape,
                                  dilated=False))
        self.plan = self.lib.QPoolPlan(geom, x.dtype == I8, self.average, self.lo, self.hi)


@register("Pool2D.AVERAGE_POOL_2D", when=quantized)
class QAveragePool2DLayer(QPool2DLayer):
    average = True


@register("Pool2D.MAX_POOL_2D", when=quantized)
class QMaxPool2DLayer(QPool2DLayer):
    pass
