"""TRANSPOSE_CONV (float32) on acl_cl (program norm.cl transpose_conv): the output shape check and
the padding are core/ops/transpose_conv.py's. The quantized forms run on cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.transpose_conv import check_output_shape, transpose_padding
from .common import ClKernel, check_act, clamp_of, register


@register("TransposeConv")
class TransposeConvLayer(ClKernel):
    """inputs (output_shape, weights [O, KH, KW, I], input, bias?)."""
    params_at = (0,)

    @classmethod
    def check_params(cls, op, graph):
        if op.inputs[1] < 0 or not graph.operands[op.inputs[1]].is_constant:
            return False, "acl_cl TransposeConv needs constant weights"
        if len(op.inputs) > 3 and op.inputs[3] >= 0 and \
                not graph.operands[op.inputs[3]].is_constant:
            return False, "acl_cl TransposeConv needs a constant bias"
        if op.params.padding not in ("SAME", "VALID"):
            return False, f"unknown padding {op.params.padding!r}"
        return check_act(op) if op.params.get("fused_activation_function") else (True, "")

    def setup(self) -> None:
        p = self.op.params
        w, x, y = self.inputs[1], self.inputs[2], self.outputs[0]
        check_output_shape(self, y.shape, x.shape, w.shape)
        n, h, wd, cin = x.shape
        cout, kh, kw, _ = w.shape
        _, oh, ow, _ = y.shape
        top, left = transpose_padding(p.padding, oh, ow, kh, kw, p.stride_h, p.stride_w)
        b = self.tin(3)
        bias = np.zeros(cout, np.float32) if b is None else np.asarray(b.data, np.float32)
        self.bias = self.const_buffer(bias.reshape(-1))
        lo, hi = clamp_of(self.op)
        ints = [np.int32(v) for v in (h, wd, cin, oh, ow, cout, kh, kw, p.stride_h,
                                      p.stride_w, top, left)]
        if y.size:
            self.launch(self.kernel("norm.cl", "transpose_conv"), (y.size,), None, x.buffer,
                        w.buffer, self.bias, y.buffer, *ints, lo, hi, np.int32(y.size))
