"""ARG_MAX / ARG_MIN (TFLite's arg_min_max.cc): the index of the first extreme value along the
axis given by input 1 (an int32/int64 scalar), as int32 or int64. The parameters and
validation every backend shares. Kernels: backends/cpu/ops/arg_min_max.py, acl_neon
ops/arg_min_max.py, acl_cl ops/arg_min_max.py."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel


class ArgMinMaxBase(MoveKernel):
    """Any input dtype (quantized ones included: values are only compared); `axis`: the
    constant axis (None: computed, read in every run)."""

    def validate(self) -> None:
        self.check_index_dtype(1)
        if self.outputs[0].dtype not in (np.int32, np.int64):
            raise self.fail(f"{self.op.name} gives int32 or int64, not {self.outputs[0].dtype}")
        self.axis = self.scalar(1) if self.const(1) is not None else None
        x = self.inputs[0]
        if self.axis is not None and x is not None and not x.is_dynamic:
            rank = len(x.shape)
            if not -rank <= self.axis < rank:
                raise self.fail(f"axis {self.axis} out of range for rank {rank}")

    def axis_value(self) -> int:
        """The axis of this run (the constant one, or input 1's value now)."""
        return self.axis if self.axis is not None else self.scalar(1)


__all__ = ["ArgMinMaxBase"]
