"""Pad / PadV2 on acl_cl: a strided gather of the input, the border filled with the padding
value (zero, the output's zero point, or PadV2's constant) (movement.StridedGather)."""
from __future__ import annotations

import numpy as np

from .common import register, strides_of
from .movement import StridedGather, gather_meta


@register("Pad", "PadV2")
class PadLayer(StridedGather):
    params_at = (1,)

    @classmethod
    def check_params(cls, op, graph):
        if op.type == "PadV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
            v = graph.operands[op.inputs[2]]
            if not v.is_constant:
                return False, "acl_cl PadV2 needs a constant padding value"
        return True, ""

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        pads = np.asarray(self.inputs[1].data).reshape(-1, 2)
        if len(self.inputs) > 2 and self.inputs[2] is not None:
            self.fill = np.asarray(self.inputs[2].data).reshape(-1)[0]
        self.gather(gather_meta(y.shape, strides_of(x.shape), [-int(p) for p in pads[:, 0]],
                                x.shape))
