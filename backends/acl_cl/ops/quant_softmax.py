"""Quantized 8-bit Softmax (int8/uint8 input, same type or int16 output) with the interpreter's
integer results: the validation and float32 exp table of core/ops/softmax.py (QSoftmaxBase,
softmax_exp_table) run as a shadow; one work item per row sums in float32 left to right as the
interpreter does, with fused multiply-adds off and correctly rounded division. int16 inputs are
refused (they run on cpu). Float form: softmax.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.softmax import QSoftmaxBase
from . import quant_common as qc
from .quant_common import CL_TYPE, QClKernel, quantized_8bit, register

I16 = np.dtype(np.int16)


@register("Softmax", when=quantized_8bit)
class QSoftmaxLayer(QClKernel):
    base_class = QSoftmaxBase
    out_types = qc.Q8 | {I16}

    @classmethod
    def check_params(cls, op, graph):
        x = graph.operands[op.inputs[0]]
        if not x.shape:
            return False, "acl_cl quantized Softmax needs rank >= 1"
        return True, ""

    def validate(self) -> None:
        sh = self.shadow()
        self.table, self.out_scale, self.zp = sh.table, sh.out_scale, sh.zp
        self.lo, self.hi = sh.lo, sh.hi

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        depth = int(x.shape[-1])
        rows = x.size // max(depth, 1)
        mode = 1 if y.dtype == qc.U8 else 0
        opts = (f"{self.qopts(x.dtype)} -DOT={CL_TYPE[np.dtype(y.dtype)]} "
                f"-cl-fp32-correctly-rounded-divide-sqrt")
        self.tab = self.const_buffer(np.asarray(self.table, np.float32))
        if x.size:
            self.launch(self.kernel("quant.cl", "qsoftmax", opts), (rows,), None, x.buffer,
                        y.buffer, self.tab, np.int32(depth), np.int32(rows),
                        np.float32(self.out_scale), np.int32(self.zp), np.int32(mode),
                        np.int32(self.lo), np.int32(self.hi))
