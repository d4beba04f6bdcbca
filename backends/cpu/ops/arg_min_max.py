"""ARG_MAX / ARG_MIN. Parameters and validation: core/ops/arg_min_max.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.arg_min_max import ArgMinMaxBase
from ....core.ops.movement import copy_checked
from .common import register


@register("ArgMinMax")
class ArgMinMaxLayer(ArgMinMaxBase):
    """ARG_MAX / ARG_MIN along a scalar axis input; the first of equal extremes wins."""

    def validate(self) -> None:
        super().validate()
        self.fn = np.argmax if self.op.subtype == "ARG_MAX" else np.argmin

    def run(self) -> None:
        copy_checked(self.outputs[0].buffer, self.fn(self.inputs[0].buffer, axis=self.axis_value())
                     .astype(self.outputs[0].dtype))
