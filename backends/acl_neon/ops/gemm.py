"""The float32 GEMM kernels' shared checks on acl_neon's packed GEMM (module _gemm): `NeonGemm`,
the forms the native plans compute (constant float32 weights and bias, non-empty tensors, the
fused clamps), and the bias as the plans read it. The kernels: conv2d.py, fully_connected.py,
transpose_conv.py (batch_matmul.py packs both operands at run time).

prepare() packs the constant weights (and bias) once into a native plan; bind() binds it to the
tensors' slots as the kernel's native step (NeonMixin: no arrays pass at run time). The fused
activation is a clamp in the micro-kernel's store: Conv2D ignores TANH/SIGN_BIT as the interpreter
does (core/ops/base.py's clamp_activation); FullyConnected and TransposeConv apply them, so those
forms stay on cpu. Weights must be constant float32 (hybrid int8-weight forms stay on cpu), tensors
non-empty.
"""
from __future__ import annotations

import numpy as np

from ....core.ir import Graph, Operation
from .base import F32, NeonMixin


def bias_array(kernel, index: int, count: int):
    """The bias as a contiguous float32 array (None when absent); its size is checked."""
    b = kernel.buf(index)
    if b is None:
        return None
    if b.size != count:
        raise kernel.fail(f"bias has {b.size} values, needs {count}")
    return np.ascontiguousarray(b, np.float32).reshape(-1)


class NeonGemm(NeonMixin):
    """The forms the GEMM plans compute: float32 input (`plan_input`) and output, constant
    float32 weights (input 1, DEFAULT format) and bias (input `bias_input`), non-empty tensors,
    and (when `acts` is given) a fused activation among them."""

    native_group = "gemm"
    bias_input = 2
    acts: tuple[str, ...] | None = None

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        if op.params.get("weights_format", "DEFAULT") != "DEFAULT":      # FullyConnected's
            return False, f"acl_neon {op.type} reads DEFAULT weights only"
        ops = graph.operands
        w = op.inputs[1]
        b = op.inputs[cls.bias_input] if len(op.inputs) > cls.bias_input else -1
        if ops[op.inputs[cls.plan_input]].dtype != F32 or \
                any(ops[o].dtype != F32 for o in op.outputs):
            return False, f"acl_neon {op.type} computes float32 only"
        if ops[w].dtype != F32 or not ops[w].is_constant:
            return False, (f"acl_neon {op.type} needs constant float32 weights (hybrid or "
                           f"non-constant weights run on cpu)")
        if b >= 0 and (ops[b].dtype != F32 or not ops[b].is_constant):
            return False, f"acl_neon {op.type} needs a constant float32 bias"
        for i in (op.inputs[cls.plan_input], w, *op.outputs):
            if any(d <= 0 for d in ops[i].shape):
                return False, f"acl_neon {op.type} does not run on empty tensors"
        act = op.params.get("fused_activation_function", "NONE") or "NONE"
        if cls.acts is not None and act not in cls.acts:
            return False, f"acl_neon {op.type} fuses clamps only, not {act}"
        return True, ""
