"""CONV_2D on acl_neon: float32 on the packed GEMM (module _gemm, gemm.py's NeonGemm), or, for
windows over at most 16 input channels (a CNN's RGB stem), on the direct convolution that
ConvPlan picks at construction (csrc/gemm/conv_direct.h); the 8-bit quantized form on the
u8 x s8 GEMM with exact int32 accumulation (module _quant). The checks, multipliers and
requantization constants are core/ops/conv2d.py's, so results are the cpu kernels' (bit-exact
with the interpreter for the quantized form). Both plans read the filter over all input
channels: grouped convolutions are refused (`grouped_kernel`) and run on cpu.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.conv2d import Conv2DBase, QConv2DBase
from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8
from ....core.ops.window import conv_geometry
from .base import QuantNeon, clamp_range, register
from .gemm import NeonGemm, bias_array
from .quant_gemm import MAX_DEPTH, conv_requant, gemm_operands


@register("Conv2D")
class Conv2DLayer(NeonGemm, Conv2DBase):
    grouped_kernel = False

    def prepare(self) -> None:
        p = self.op.params
        w = self.buf(1)
        cout = w.shape[0]
        g = conv_geometry(p, self.buf(0).shape, w.shape[1:3], self.out.shape)
        lo, hi = clamp_range(p.fused_activation_function)
        geom = [g.n, g.h, g.w, g.c, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow,
                cout]
        self.plan = self.lib.ConvPlan(np.ascontiguousarray(w, np.float32),
                                      bias_array(self, self.bias_input, cout), geom, lo, hi,
                                      *self.epilogue())

    def epilogue(self) -> tuple:
        """The plan's epilogue arguments (kind, clamp): none here; conv_epilogue.py's fused
        kernels give theirs."""
        return ()


@register("Conv2D", when=quantized)
class QConv2DLayer(QuantNeon, QConv2DBase):
    grouped_kernel = False

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok and op.inputs[1] >= 0:
            w = graph.operands[op.inputs[1]]
            if len(w.shape) == 4 and int(np.prod(w.shape[1:])) > MAX_DEPTH:
                return False, f"acl_neon quantized Conv2D: depth above {MAX_DEPTH}"
        return ok, why

    def prepare(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        cout = int(w.shape[0])
        wzp = self.zero_point(w)        # 0 unless uint8 (validated)
        wq, cc, rcoef, pad = gemm_operands(np.asarray(w.buffer).reshape(cout, -1), x.dtype,
                                           self.xzp, wzp)
        geom = list(conv_geometry(self.op.params, x.shape, w.shape[1:3], y.shape))
        self.plan = self.lib.QConvPlan(geom, wq, cc, rcoef, x.dtype == I8, pad,
                                      conv_requant(self.requant, cout))
