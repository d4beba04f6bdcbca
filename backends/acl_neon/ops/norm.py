"""Float32 L2Normalization, InstanceNorm and LocalResponseNormalization on native code (module
_spatial): the validation of core/ops/norm.py, a native plan bound as the kernel's native step.
Fused activations reach the native code as a clamp range; a TANH or SIGN_BIT fused into a
normalization, and empty tensors, are refused and fall back to cpu."""
from __future__ import annotations

import numpy as np

from ....core.exec.native import slot_of
from ....core.ops.norm import (InstanceNormBase, L2NormalizationBase,
                               LocalResponseNormalizationBase)
from .base import clamp_range, register
from .spatial import NeonSpatial


@register("L2Normalization")
class L2NormalizationLayer(NeonSpatial, L2NormalizationBase):
    rank = None
    clamp_only = True

    def prepare(self) -> None:
        shape = self.buf(0).shape
        depth = int(shape[-1]) if shape else 1
        lo, hi = clamp_range(self.op.params.get("fused_activation_function"))
        self.plan = self.lib.l2_plan(self.buf(0).size, self.out.size, depth, lo, hi)


@register("InstanceNorm")
class InstanceNormLayer(NeonSpatial, InstanceNormBase):
    float_inputs = (0, 1, 2)
    rank = None
    clamp_only = True

    def prepare(self) -> None:
        x = self.buf(0)
        n, c = x.shape[0], x.shape[-1]
        spatial = int(np.prod(x.shape[1:-1]))
        sizes = [0 if self.buf(i) is None else int(self.buf(i).size) for i in (1, 2)]
        lo, hi = clamp_range(self.op.params.fused_activation_function)
        self.plan = self.lib.instance_norm_plan(n, spatial, c, self.eps, *sizes, lo, hi)

    def bind(self):
        """Input, gamma and beta (None when absent), output."""
        slots = [None if self.buf(i) is None else slot_of(self.inputs[i]) for i in (1, 2)]
        return self.plan.bind(slot_of(self.inputs[0]), *slots, slot_of(self.outputs[0]),
                              self.threads)


@register("LocalResponseNormalization")
class LocalResponseNormalizationLayer(NeonSpatial, LocalResponseNormalizationBase):
    def prepare(self) -> None:
        x = self.buf(0)
        c = x.shape[-1]
        self.plan = self.lib.lrn_plan(x.size // c, c, max(self.radius, 0), float(self.bias),
                                      float(self.alpha), float(self.beta))
