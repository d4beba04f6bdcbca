"""FULLY_CONNECTED on acl_cl: float32 on conv.cl's conv_gemm (the implicit GEMM of CONV_2D as a
1x1 convolution) and the 8-bit quantized form (int8 per-tensor / per-channel, uint8 per-tensor
with a weight zero point) with the interpreter's integer results: int32 accumulators, the
multipliers of core/ops/fully_connected.py (fc_multipliers, QuantizeMultiplier) and the
optimized kernel's vector rounding for every element (quant.cl rescale with vec = 1), so
outputs equal the interpreter's. int16 activations are refused (they run on cpu).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.fully_connected import fc_multipliers
from ....core.quant import qmath
from .common import check_act, register
from .gemm import GemmBase, const_weights
from .quant_common import I32, U8, QClKernel, is_8bit_quantized, quantized_8bit


@register("FullyConnected")
class FullyConnectedLayer(GemmBase):
    @classmethod
    def check_params(cls, op, graph):
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            return False, "acl_cl FullyConnected supports the DEFAULT weights format only"
        return const_weights(op, graph)

    def validate(self) -> None:
        x, w = self.inputs[0], self.inputs[1]
        if len(w.shape) != 2 or w.shape[1] == 0 or x.size % w.shape[1]:
            raise self.fail(f"input {x.shape} cannot be flattened to rows of weights {w.shape}")

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        cout, k = w.shape
        m = x.size // k
        self.upload_weights(np.asarray(w.data, np.float32).T, cout, m)
        geo = (1, m, k, 1, m, cout, self.cout_pad, 1, 1, 1, 1, 1, 1, 0, 0)
        self.gemm(x, y, geo, m, cout)


@register("FullyConnected", when=quantized_8bit)
class QFullyConnectedLayer(QClKernel):
    @classmethod
    def supports(cls, op, graph):
        g = graph.operands
        if len(op.inputs) < 2 or op.inputs[1] < 0:
            return False, "FullyConnected needs weights"
        x, w, y = g[op.inputs[0]], g[op.inputs[1]], g[op.outputs[0]]
        if not (is_8bit_quantized(x) and is_8bit_quantized(w) and is_8bit_quantized(y)):
            return False, "acl_cl quantized FullyConnected needs quantized input, weights, output"
        if not x.dtype == w.dtype == y.dtype:
            return False, (f"acl_cl quantized FullyConnected needs one 8-bit type, got "
                           f"{x.type_name}/{w.type_name}/{y.type_name}")
        if not w.is_constant:
            return False, "acl_cl quantized FullyConnected needs constant weights"
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            b = g[op.inputs[2]]
            if b.dtype != I32 or not b.is_constant:
                return False, "acl_cl quantized FullyConnected needs a constant int32 bias"
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":
            return False, "acl_cl FullyConnected supports the DEFAULT weights format only"
        if len(w.quant.scale) > 1 and x.dtype == U8:
            return False, "uint8 FullyConnected needs per-tensor weights"
        for o in (x, w, y):
            if o.dynamic or len(o.shape) > 6:
                return False, f"acl_cl needs static shapes of rank <= 6 (#{o.index})"
        return check_act(op)      # refuses RELU_0_TO_1 (not in common.CLAMP)

    def setup(self) -> None:
        x, w, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if len(w.shape) != 2 or x.size % max(w.shape[1], 1):
            raise self.fail(f"input {x.shape} cannot be flattened to rows of weights {w.shape}")
        units, depth = w.shape
        ws = np.asarray(w.quant.scale, np.float32).reshape(-1)
        per_channel = ws.size > 1
        s_in, s_out = (float(np.float32(t.quant.scale[0])) for t in (x, y))
        m, s = qmath.quantize_multiplier(fc_multipliers(s_in, ws, s_out))
        wzp = np.zeros(units, np.int32) if per_channel else \
            np.array([int(w.quant.zero_point[0])], np.int32)
        b = self.tin(2)
        bias = np.zeros(units, np.int32) if b is None else \
            np.asarray(b.data, np.int32).reshape(-1)
        act = self.op.params.get("fused_activation_function", "NONE") or "NONE"
        lo, hi = qmath.activation_range(act, s_out, int(y.quant.zero_point[0]), y.dtype)
        self.bufs = [self.const_buffer(a) for a in (bias, m.astype(np.int32), s.astype(np.int32),
                                                    wzp)]
        ints = [np.int32(v) for v in (depth, units, int(x.quant.zero_point[0]),
                                      int(y.quant.zero_point[0]), lo, hi, per_channel, y.size)]
        if y.size:
            self.launch(self.kernel("quant.cl", "qfc", self.qopts(x.dtype)), (y.size,), None,
                        x.buffer, w.buffer, self.bufs[0], y.buffer, *self.bufs[1:], *ints)
