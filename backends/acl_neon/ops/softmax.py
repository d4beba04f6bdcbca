"""Float32 Softmax (last axis, any rank >= 1) on acl_neon, native group `eltwise`: the op's
parameters from core/ops/softmax.py, one native call per run; other forms stay on cpu.
Quantized form: quant_softmax.py."""
from __future__ import annotations

from ....core.ops.softmax import SoftmaxBase
from .base import NeonMixin, float_io, register, size


@register("Softmax")
class SoftmaxLayer(NeonMixin, SoftmaxBase):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ok, why = float_io(op, graph, "Softmax")
        if ok and len(graph.operands[op.inputs[0]].shape) == 0:
            return False, "acl_neon Softmax needs rank >= 1"
        return ok, why

    def prepare(self) -> None:
        shape = self.inputs[0].shape
        if len(shape) == 0 or self.outputs[0].shape != shape:
            raise self.fail(f"softmax input {shape} and output {self.outputs[0].shape}")
        n = int(shape[-1])
        beta = float(self.beta_param())
        self.plan = self.lib.SoftmaxPlan(size(shape) // n, n, beta)
