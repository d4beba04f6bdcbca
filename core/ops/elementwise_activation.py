"""ElementwiseActivation (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, TANH, LOGISTIC, HARD_SWISH,
LEAKY_RELU, ELU, GELU): what every backend's kernels share.

`ElementwiseActivationBase`: the float32 form (the sub-types any backend computes). Kernels:
backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py. Quantized forms: backends/cpu/ops/quant/qactivation.py,
qlut.py, qhardswish.py, qtanh16.py.
"""
from __future__ import annotations

from .base import OpKernel

ACTIVATIONS = frozenset({"RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LOGISTIC",
                         "HARD_SWISH", "LEAKY_RELU", "ELU", "GELU"})


class ElementwiseActivationBase(OpKernel):
    """A float32 activation among ACTIVATIONS (`alpha`: LEAKY_RELU's slope, 0.2 by default;
    `approximate`: GELU's tanh form)."""

    @classmethod
    def supports(cls, op, graph):
        if op.subtype not in ACTIVATIONS:
            return False, f"{cls.backend_id} has no {op.subtype} kernel yet"
        return super().supports(op, graph)


__all__ = ["ACTIVATIONS", "ElementwiseActivationBase"]
