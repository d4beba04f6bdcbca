"""ArgMinMax (ARG_MAX / ARG_MIN along a constant axis; indexing.cl argminmax): float32 input, int32
or int64 indices, the first of equal extremes wins (core/ops/arg_min_max.py)."""
from __future__ import annotations

import numpy as np

from .common import ClKernel, register

I64 = np.dtype(np.int64)


@register("ArgMinMax")
class ArgMinMaxLayer(ClKernel):
    params_at = (1,)
    out_types = frozenset({np.dtype(np.int32), I64})

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        axis = self.param_values(1)[0]
        if not -len(x.shape) <= axis < len(x.shape) or x.shape[axis] == 0:
            raise self.fail(f"axis {axis} out of range (or empty) for input {x.shape}")
        axis %= len(x.shape)
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        opts = "-DIDX=long" if y.dtype == I64 else ""
        self.launch(self.kernel("indexing.cl", "argminmax", opts), (y.size,), None, x.buffer,
                    y.buffer, np.int32(x.shape[axis]), np.int32(inner),
                    np.int32(self.op.subtype == "ARG_MIN"), np.int32(y.size))
