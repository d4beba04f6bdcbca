"""TRANSPOSE_CONV (float32) on acl_neon's packed GEMM (module _gemm, gemm.py's NeonGemm). The
checks, output shape and padding are core/ops/transpose_conv.py's. The quantized form runs on
cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.base import CLAMPS
from ....core.ops.transpose_conv import TransposeConvBase, transpose_padding
from .base import clamp_range, register
from .gemm import NeonGemm, bias_array


@register("TransposeConv")
class TransposeConvLayer(NeonGemm, TransposeConvBase):
    plan_input = 2
    bias_input = 3
    acts = CLAMPS

    def prepare(self) -> None:
        p = self.op.params
        w, x, y = self.buf(1), self.buf(2), self.out
        cout, kh, kw, cin = w.shape
        n, h, wd, _ = x.shape
        _, oh, ow, _ = y.shape
        top, left = transpose_padding(p.padding, oh, ow, kh, kw, p.stride_h, p.stride_w)
        lo, hi = clamp_range(p.get("fused_activation_function", "NONE"))
        geom = [n, h, wd, cin, kh, kw, p.stride_h, p.stride_w, 1, 1, top, left, oh, ow, cout]
        bias = bias_array(self, self.bias_input, cout)
        self.plan = self.lib.TransposeConvPlan(np.ascontiguousarray(w, np.float32), bias, geom,
                                               lo, hi)
