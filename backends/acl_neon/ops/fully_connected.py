"""FULLY_CONNECTED on acl_neon: float32 on the packed GEMM (module _gemm, gemm.py's NeonGemm)
and the 8-bit quantized form on the u8 x s8 GEMM with exact int32 accumulation (module _quant).
The checks and multipliers are core/ops/fully_connected.py's, so results are the cpu kernels'
(bit-exact with the interpreter for the quantized form).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.base import CLAMPS
from ....core.ops.forms import quantized
from ....core.ops.fully_connected import FullyConnectedBase, QFullyConnectedBase
from ....core.ops.quant_base import I8
from .base import QuantNeon, clamp_range, register
from .gemm import NeonGemm, bias_array
from .quant_gemm import MAX_DEPTH, gemm_operands

I32, I64 = np.int32, np.int64


@register("FullyConnected")
class FullyConnectedLayer(NeonGemm, FullyConnectedBase):
    acts = CLAMPS

    def prepare(self) -> None:
        w = self.buf(1)
        rows = self.buf(0).size // w.shape[1]
        lo, hi = clamp_range(self.op.params.fused_activation_function)
        if self.out.size != rows * w.shape[0]:
            raise self.fail(f"output {self.out.shape} does not hold {rows}x{w.shape[0]} values")
        self.plan = self.lib.FcPlan(np.ascontiguousarray(w, np.float32),
                                    bias_array(self, self.bias_input, w.shape[0]), rows, lo, hi)


@register("FullyConnected", when=quantized)
class QFullyConnectedLayer(QuantNeon, QFullyConnectedBase):
    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        w = graph.operands[op.inputs[1]]
        b = graph.operands[op.inputs[2]] if len(op.inputs) > 2 and op.inputs[2] >= 0 else None
        if not w.is_constant or (b is not None and not b.is_constant):
            return False, "acl_neon quantized FullyConnected needs constant weights and bias"
        if len(w.shape) == 2 and int(w.shape[1]) > MAX_DEPTH:
            return False, f"acl_neon quantized FullyConnected: depth above {MAX_DEPTH}"
        if w.dtype == I8 and np.size(w.quant.scale) == 1 and int(w.quant.zero_point[0]) != 0:
            return False, "acl_neon quantized FullyConnected: int8 weights need zero point 0"
        return True, ""

    def prepare(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        units, depth = int(w.shape[0]), int(w.shape[1])
        rows = int(np.prod(x.shape)) // depth
        wq, cc, rcoef, pad = gemm_operands(np.asarray(w.buffer), x.dtype, self.x_zp, self.w_zp)
        bias = self.inputs[2] if len(self.inputs) > 2 else None
        bv = np.zeros(units, I32) if bias is None or bias.buffer is None \
            else np.asarray(bias.buffer, I32).reshape(units)
        m = np.broadcast_to(np.asarray(self.m, I64), (units,))
        s = np.broadcast_to(np.asarray(self.s, I64), (units,))
        rq = {"fc": True, "m": np.ascontiguousarray(m), "s": np.maximum(-s, 0).astype(I32),
              "left": np.maximum(s, 0).astype(I32), "bias": np.ascontiguousarray(bv),
              "zp_add": self.y_zp, "lo": self.lo, "hi": self.hi}
        geom = [rows, 1, 1, depth, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
        self.plan = self.lib.QConvPlan(geom, wq, cc, rcoef, x.dtype == I8, pad, rq)
