"""Quantized 8-bit Reshape / Squeeze / ExpandDims (a byte copy: input and output must carry the
same scale and zero point; float form: reshape.py), Concat (bytes copied; uint8 inputs whose
parameters differ from the output's are requantized through a 256-entry table of
core/ops/concat.py's float32 arithmetic, the cpu kernel's, so results are identical; float
form: concat.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.concat import QConcatBase, requant_table
from .common import same_quant
from .reshape import ReshapeLayer
from .quant_common import U8, QClKernel, quantized_8bit, register


@register("Reshape", "Squeeze", "ExpandDims", when=quantized_8bit)
class QReshapeLayer(QClKernel, ReshapeLayer):
    """ReshapeLayer's copy (and its params_at) with the 8-bit checks."""

    @classmethod
    def check_params(cls, op, graph):
        x, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if x.dtype != y.dtype or not same_quant(x, y):
            return False, (f"acl_cl quantized {op.type} copies bytes: input and output need "
                           f"the same type, scale and zero point")
        return True, ""


@register("Concat", when=quantized_8bit)
class QConcatLayer(QClKernel):
    base_class = QConcatBase

    @classmethod
    def check_params(cls, op, graph):
        y = graph.operands[op.outputs[0]]
        for i in op.inputs:
            t = graph.operands[i]
            if t.dtype != y.dtype:
                return False, f"acl_cl quantized Concat needs one type, got {t.type_name}"
            if y.dtype != U8 and not same_quant(t, y):
                return False, ("int8 Concat needs the output's scale and zero point on every "
                               "input (as TFLite)")
        if op.params.get("fused_activation_function") not in (None, "NONE"):
            return False, "quantized Concat has no fused activation"
        return True, ""

    def validate(self) -> None:
        shadow = self.shadow()
        self.rescale = shadow.rescale       # per input: None or float32 (scale, bias)
        self.zp = shadow.zp                 # the output's zero point

    def setup(self) -> None:
        y = self.outputs[0]
        rank = max(len(y.shape), 1)
        axis = self.op.params.get("axis", 0) % rank
        inner = int(np.prod(y.shape[axis + 1:], dtype=np.int64))
        dst_cols = (y.shape[axis] if y.shape else 1) * inner
        col = 0
        self.tables_ = []       # the table buffers live as long as the kernels that read them
        for t, r in zip(self.inputs, self.rescale):
            cols = (t.shape[axis] if t.shape else 1) * inner
            if t.size:
                tab = self.const_buffer(np.arange(256, dtype=np.uint8) if r is None
                                        else requant_table(*r, self.zp))
                self.tables_.append(tab)
                self.launch(self.kernel("quant.cl", "qcopy_rows"), (t.size,), None, t.buffer,
                            y.buffer, tab, np.int32(cols), np.int32(dst_cols), np.int32(col),
                            np.int32(r is not None), np.int32(t.size))
            col += cols
