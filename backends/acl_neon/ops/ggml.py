"""Circle's GGML block-quantized forms on acl_neon (module _ggml): FULLY_CONNECTED computed
from the packed blocks in place (the input quantized per block as GGML's mul_mat does, integer
block dots: AVX-512 VNNI / AVX2 / NEON or portable code) and GATHER dequantizing the gathered
block rows. Checks and geometry: core/ops/fully_connected.py GgmlFullyConnectedBase, core/ops/
gather.py GgmlGatherBase; arithmetic: core/quant/ggml_blocks.py (the cpu kernels' too)."""
from __future__ import annotations

from ....core.ir import Graph, Operation
from ....core.ops.base import CLAMPS
from ....core.ops.forms import ggml_params, ggml_weights
from ....core.ops.fully_connected import GgmlFullyConnectedBase
from ....core.ops.gather import GgmlGatherBase
from .base import NeonMixin, clamp_range, register
from .gemm import bias_array


@register("FullyConnected", when=ggml_weights)
class GgmlFullyConnectedLayer(NeonMixin, GgmlFullyConnectedBase):
    native_group = "ggml"

    def plan_operands(self) -> list:
        return [self.inputs[0], self.outputs[0]]

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        act = op.params.get("fused_activation_function", "NONE") or "NONE"
        if act not in CLAMPS:
            return False, f"acl_neon GGML FullyConnected fuses clamps only, not {act}"
        b = op.inputs[2] if len(op.inputs) > 2 else -1
        if b >= 0 and not graph.operands[b].is_constant:
            return False, "acl_neon GGML FullyConnected needs a constant bias"
        if any(d <= 0 for d in graph.operands[op.inputs[0]].shape):
            return False, "acl_neon GGML FullyConnected does not run on empty inputs"
        return True, ""

    def prepare(self) -> None:
        rows = self.buf(0).size // self.depth
        lo, hi = clamp_range(self.op.params.fused_activation_function)
        self.plan = self.lib.FcPlan(self.buf(1), self.fmt.name, self.units, self.depth,
                                    bias_array(self, 2, self.units), rows, lo, hi)


@register("Gather", when=ggml_params)
class GgmlGatherLayer(NeonMixin, GgmlGatherBase):
    native_group = "ggml"

    def prepare(self) -> None:
        from ....core.quant.ggml_blocks import QK
        super().prepare()
        self.plan = self.lib.GatherPlan(self.fmt.name, self.batch, self.outer, self.limit,
                                        self.n_idx, self.inner // QK,
                                        self.inputs[1].dtype.itemsize == 8)

    def plan_operands(self) -> list:
        return [self.inputs[0], self.inputs[1], self.outputs[0]]
