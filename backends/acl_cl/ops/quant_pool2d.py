"""Quantized 8-bit Pool2D AVERAGE / MAX (cl/quant.cl qpool) with the interpreter's integer
results: the validation of core/ops/pool2d.py (QPool2DBase) run as a shadow for the activation
clamp; int32 sums over the valid taps divided with rounding half away from zero, or the
maximum; then clamped (the arithmetic of backends/cpu/ops/quant/qpool.py). Float form:
pool2d.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.pool2d import QUANTIZED_KINDS, QPool2DBase
from .common import same_quant
from .pool2d import POOL_KIND, pool_launch
from .quant_common import QClKernel, quantized_8bit, register


@register("Pool2D", when=quantized_8bit)
class QPool2DLayer(QClKernel):
    base_class = QPool2DBase

    @classmethod
    def check_params(cls, op, graph):
        if op.subtype not in QUANTIZED_KINDS:
            return False, f"acl_cl has no quantized {op.subtype} (TFLite has none either)"
        x, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if len(x.shape) != 4:
            return False, "acl_cl quantized Pool2D needs NHWC input"
        if x.dtype != y.dtype or not same_quant(x, y):
            return False, "quantized Pool2D needs the input's scale and zero point on the output"
        return True, ""

    def validate(self) -> None:
        sh = self.shadow()
        self.lo, self.hi = sh.lo, sh.hi

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        gsize, geo = pool_launch(self.op, x, y)
        kind = POOL_KIND[self.op.subtype]
        ints = [np.int32(v) for v in geo + [kind, self.lo, self.hi]]
        if y.size:
            self.launch(self.kernel("quant.cl", "qpool", self.qopts(x.dtype)), gsize, None,
                        x.buffer, y.buffer, *ints)
