"""Quantized (int8/uint8) kernels of acl_neon: the cpu quantized kernels' validation and
precomputed parameters (multipliers, shifts, requantization constants, tables), with the integer
loops in native code (module _quant). Results are the cpu kernels' (bit-exact with the
interpreter): the native requantization evaluates the very int64 formulas of
backends/cpu/ops/quant (qconv.ConvRequant, qmath.multiply_by_quantized_multiplier_vector).

Registration: each quantized class is registered in acl_neon's registry under its op's key with
`when=quantized` (first input quantized, core/ops/forms.py); the float kernels run the rest.

This module: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (GEMM with exact int32 accumulation);
quant_elem.py: pooling, ADD/SUB/MUL (pair tables), TANH/LOGISTIC (256-entry tables).
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from ....core.ops.forms import quantized
from ....core.ops.quant_base import I8, U8
from ...cpu.ops.quant.qconv import QConv2DLayer
from ...cpu.ops.quant.qconv_dw import QDepthwiseConv2DLayer
from ...cpu.ops.quant.qfc import QFullyConnectedLayer
from .base import NeonMixin, conv_geometry, register

I32, I64 = np.int32, np.int64
EIGHT_BIT = (I8, U8)
MAX_DEPTH = (1 << 31) // (255 * 255)      # exact int32 dot products and correction terms

class QuantNeon(NeonMixin):
    """Base of the quantized acl_neon kernels: 8-bit activations only (int16 falls back)."""

    native_group = "quant"
    float_only = False

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        x = graph.operands[op.inputs[0]]
        if x.dtype not in EIGHT_BIT:
            return False, f"acl_neon has no {x.dtype} quantized {op.type} kernel"
        return True, ""


def conv_requant(rq, n: int) -> dict:
    """The native form of a qconv.ConvRequant (int64 arrays per channel)."""
    def per(v):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(v, I64), (n,)))
    thresh = np.full(n, np.iinfo(I64).min, I64)
    dfix = np.zeros(n, I64)
    thresh[rq.split:] = rq.thresh
    dfix[rq.split:] = rq.dfix
    return {"fc": False, "m": per(rq.m), "k": per(rq.k), "thresh": thresh, "dfix": dfix,
            "s": per(rq.s).astype(I32), "zp_add": 0 if rq.fold else rq.zp,
            "lo": rq.lo, "hi": rq.hi}


def gemm_operands(w2d: np.ndarray, x_dtype, x_zp: int, w_zp: int) -> tuple:
    """(int8 weights, per-channel constant terms, rowsum coefficient, padding code) of the
    u8 x s8 product (see csrc/quant/qgemm.h)."""
    w64 = np.asarray(w2d, I64)
    if x_dtype == I8:
        return (np.ascontiguousarray(w2d, np.int8), (-(128 + x_zp) * w64.sum(axis=1)).astype(I32),
                0, (x_zp + 128) & 0xFF)
    wq = (w64 - 128).astype(np.int8)
    return (np.ascontiguousarray(wq), (-x_zp * (w64 - w_zp).sum(axis=1)).astype(I32),
            128 - w_zp, x_zp & 0xFF)


@register("Conv2D", when=quantized)
class NeonQConv2D(QuantNeon, QConv2DLayer):
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
        self.plan = self.lib.ConvPlan(geom, wq, cc, rcoef, x.dtype == I8, pad,
                                      conv_requant(self.requant, cout))


@register("DepthwiseConv2D", when=quantized)
class NeonQDepthwiseConv2D(QuantNeon, QDepthwiseConv2DLayer):
    def prepare(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        cout, cin = int(w.shape[3]), int(x.shape[3])
        wzp = self.zero_point(w)        # 0 unless uint8 (validated)
        wq = (np.asarray(w.buffer, I64).reshape(-1, cout) - wzp).astype(np.int16)
        geom = list(conv_geometry(self.op.params, x.shape, w.shape[1:3], y.shape))
        self.plan = self.lib.DepthwisePlan(geom, cout // cin, np.ascontiguousarray(wq),
                                           x.dtype == I8, self.xzp,
                                           conv_requant(self.requant, cout))


@register("FullyConnected", when=quantized)
class NeonQFullyConnected(QuantNeon, QFullyConnectedLayer):
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
        self.plan = self.lib.ConvPlan(geom, wq, cc, rcoef, x.dtype == I8, pad, rq)
