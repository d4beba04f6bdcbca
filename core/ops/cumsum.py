"""CUMSUM (TFLite's cumsum.cc): running sums along the axis given by input 1 (int32/int64),
`exclusive` shifting them by one, `reverse` running from the end; the output has the input's
dtype. The parameters and validation every backend shares. Kernel: backends/cpu/ops/cumsum.py."""
from __future__ import annotations

import numpy as np

from .base import NUMERIC, OpKernel


class CumsumBase(OpKernel):
    """CUMSUM of float32, int32 or int64 values; `exclusive` and `reverse` from the params."""

    dtypes = NUMERIC

    def validate(self) -> None:
        if self.inputs[1].dtype not in (np.int32, np.int64):
            raise self.fail(f"axis must be int32, not {self.inputs[1].dtype}")
        if self.outputs[0].dtype != self.inputs[0].dtype:
            raise self.fail(f"output has dtype {self.outputs[0].dtype}, expected "
                            f"{self.inputs[0].dtype}")
        self.exclusive = bool(self.op.params.get("exclusive", False))
        self.reverse = bool(self.op.params.get("reverse", False))


__all__ = ["CumsumBase"]
