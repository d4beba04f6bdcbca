"""PAD / PADV2 on acl_neon: one native CopyPlan (see movement.py); the paddings must be
constant (core/ops/pad.py checks them against the shapes at configure)."""
from __future__ import annotations

import numpy as np

from ....core.ops.pad import PadBase, QPadBase
from .base import register
from .movement import NeonMove, item_bytes


@register("Pad", "PadV2")
class PadLayer(NeonMove, PadBase):
    """The border is filled (the constant, or a copy from a computed constant_values with
    zero strides), the interior copied."""

    const_inputs = (1,)
    quantized_form = QPadBase
    requant_refusal = ("acl_neon pads quantized tensors only when the input (and "
                       "constant_values) have the output's scale and zero point")

    @classmethod
    def quant_inputs(cls, op) -> list[int]:
        return [op.inputs[0]] + list(op.inputs[2:3])

    def prepare(self) -> None:
        PadBase.prepare(self)       # checks the paddings against the shapes (compile error)
        super().prepare()

    def build(self) -> None:
        x, out = self.buf(0), self.out
        y = self.outputs[0]
        value = self.value
        if len(self.inputs) <= 2 and y.quant is not None and out.dtype.kind in "iu":
            value = int(y.quant.zero_point[0])      # PAD: the output's zero point
        srcs = [self.inputs[0]]
        if value is None:           # computed constant_values: copied in every run
            srcs.append(self.inputs[2])
            vsrc = self.buf(2).reshape(-1)[:1]
        steps = [(0, 0, x, self.interior)]
        inner: tuple = ()
        for d, (a, b) in enumerate(self.pads.tolist()):
            for part in (slice(0, a), slice(a + x.shape[d], out.shape[d])):
                region = out[inner + (part,)]
                if region.size == 0:
                    continue
                if value is None:
                    src = np.lib.stride_tricks.as_strided(vsrc, region.shape,
                                                          (0,) * region.ndim)
                    steps.append((1, 0, src, region))
                else:
                    steps.append((None, 0, item_bytes(value, out.dtype), region))
            inner += (slice(a, a + x.shape[d]),)
        self.copy_plan(srcs, [y], steps)
