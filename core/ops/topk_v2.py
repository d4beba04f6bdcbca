"""TOPK_V2 (TFLite's topk_v2.cc): the k largest values along the last axis, descending, equal
values by lower index, and their indices; k is input 1. The parameters and validation every
backend shares. Kernels: backends/cpu/ops/topk_v2.py, acl_cl ops/topk_v2.py."""
from __future__ import annotations

import numpy as np

from .base import ANY, OpKernel

K_DTYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64))


class TopKV2Base(OpKernel):
    """Any value dtype (quantized ones included: values move unchanged); k and the indices
    int16/int32/int64."""

    dtypes = ANY
    quantized = True
    data = 0

    def validate(self) -> None:
        k, x, values = self.inputs[1], self.inputs[0], self.outputs[0]
        if k is not None and k.dtype not in K_DTYPES:
            raise self.fail(f"input 1 must be int16/int32/int64, not {k.dtype}")
        if values.dtype != x.dtype:
            raise self.fail(f"output 0 has dtype {values.dtype}, the input {x.dtype}")
        if self.outputs[1].dtype not in K_DTYPES:
            raise self.fail(f"TOPK_V2 indices are int16/int32/int64, not "
                            f"{self.outputs[1].dtype}")


__all__ = ["K_DTYPES", "TopKV2Base"]
