"""GatedConv2D on acl_neon: a squeeze-and-excitation gate, MUL(x, gate) with one gate value per
channel (per image or for all), and the 1x1 stride-1 CONV_2D that alone reads the product,
fused by the compiler (backends/acl_neon/folds.py, `propose_gates`). The packed GEMM
(module _gemm, gated_gemm_f32) gathers each tile's input rows as clamp(x * gate) (the MUL's
product and fused clamp, `gate_activation`) into per-thread scratch, so the gated tensor is
never written; the results are bit-identical to the MUL then conv2d.py's kernel.

The fused op's inputs: the MUL's two (x and the gate, in the MUL's order: `gate_input` is the
gate's), then the convolution's weights and bias; its params are the convolution's.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.base import OpKernel
from .base import NeonMixin, clamp_range, register
from .gemm import bias_array


@register("GatedConv2D")
class GatedConv2DLayer(NeonMixin, OpKernel):
    native_group = "gemm"

    def validate(self) -> None:
        p = self.op.params
        gi = p.gate_input
        x, gate, w = self.inputs[1 - gi], self.inputs[gi], self.inputs[2]
        n, h, wd, c = x.shape
        if tuple(gate.shape) not in ((1, 1, 1, c), (n, 1, 1, c)) or \
                tuple(w.shape[1:]) != (1, 1, c):
            raise self.fail(f"a gated 1x1 convolution of input {x.shape} needs a gate of shape "
                            f"(1 or {n}, 1, 1, {c}) and weights (cout, 1, 1, {c}), got "
                            f"{gate.shape} and {w.shape}")

    def prepare(self) -> None:
        p = self.op.params
        x, gate = self.inputs[1 - p.gate_input], self.inputs[p.gate_input]
        w = self.buf(2)
        n, h, wd, c = (int(d) for d in x.shape)
        cout = int(w.shape[0])
        self.plan = self.lib.GatedConvPlan(
            np.ascontiguousarray(w, np.float32).reshape(cout, c), bias_array(self, 3, cout),
            n, h * wd, n > 1 and int(gate.shape[0]) == n,
            *clamp_range(p.get("fused_activation_function")),
            *clamp_range(p.get("gate_activation")))

    def plan_operands(self) -> list:
        p = self.op.params
        return [self.inputs[1 - p.gate_input], self.inputs[p.gate_input], self.outputs[0]]
