"""`NeonSpatial`, the base of the float32 kernels of native module _spatial: DepthwiseConv2D
(depthwise_conv2d.py), Pool2D (pool2d.py), ResizeBilinear (resize.py), L2Normalization,
InstanceNorm and LocalResponseNormalization (norm.py).

Each subclasses the core base of its op (the same validation as every backend), builds a
native plan in prepare() and binds it to its tensors' slots as its native step (NeonMixin's
bind(), or the kernel's own where an operand is optional). Fused activations reach the native
code as a clamp range; a form computed here by no native kernel (a TANH or SIGN_BIT fused into
a normalization, empty tensors) is refused and falls back to cpu.
"""
from __future__ import annotations

from ....core.ir import Graph, Operation
from ....core.ops.base import CLAMPS
from .base import F32, NeonMixin


class NeonSpatial(NeonMixin):
    native_group = "spatial"
    float_inputs: tuple[int, ...] = (0,)     # inputs that must be float32 when present
    rank: int | None = 4                     # required rank of input 0 (None: any)
    clamp_only = False                       # refuse fused activations other than clamps

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        for k in cls.float_inputs:
            i = op.inputs[k] if k < len(op.inputs) else -1
            if i >= 0 and graph.operands[i].dtype != F32:
                return False, f"acl_neon {op.type} computes float32 operands only"
        for i in (*op.inputs, *op.outputs):
            if i >= 0 and any(d == 0 for d in graph.operands[i].shape):
                return False, f"acl_neon {op.type} leaves empty tensors to cpu"
        x = graph.operands[op.inputs[0]]
        if cls.rank is not None and len(x.shape) != cls.rank:
            return False, f"acl_neon {op.type} needs a rank-{cls.rank} input"
        act = op.params.get("fused_activation_function")
        if cls.clamp_only and act not in (None, *CLAMPS):
            return False, f"acl_neon {op.type} has no fused {act}"
        return True, ""
