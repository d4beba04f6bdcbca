"""Quantized SOFTMAX (int8 / uint8 input; the same type or int16 out) on acl_neon (module
_quant: csrc/quant/qsoftmax.h): the validation and exp table of core/ops/softmax.py
(QSoftmaxBase, the interpreter's SoftmaxInt8LUT), the per-row max, sequential float32 sum and
rounding in native code with the very same float32 arithmetic (bit-exact with the interpreter).
Float form: softmax.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8, I16, U8
from ....core.ops.softmax import QSoftmaxBase
from .base import QuantNeon, register


@register("Softmax", when=quantized)
class QSoftmaxLayer(QuantNeon, QSoftmaxBase):
    def prepare(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        shape = tuple(int(d) for d in x.shape)
        depth = shape[-1] if shape else 1
        rows = int(np.prod(shape[:-1], dtype=np.int64)) if shape else 1
        self.plan = self.lib.QSoftmaxPlan(rows, depth, {
            "signed": x.dtype == I8, "out_bytes": 2 if y.dtype == I16 else 1,
            "round_away": y.dtype != U8, "zp": int(self.zp) if y.dtype != U8 else 0,
            "lo": self.lo, "hi": self.hi, "out_scale": float(self.out_scale),
            "table": np.ascontiguousarray(self.table, np.float32)})
