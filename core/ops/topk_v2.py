"""TOPK_V2 (TFLite's topk_v2.cc): the k largest values along the last axis, descending, equal
values by lower index, and their indices; k is input 1. The parameters and validation every
backend shares. Kernels: backends/cpu/ops/topk_v2.py, acl_cl ops/topk_v2.py."""
from __future__ import annotations

import numpy as np

from .movement import MoveKernel

K_DTYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64))


class TopKV2Base(MoveKernel):
    """Any value dtype (quantized ones included: values move unchanged); k and the indices
    int16/int32/int64."""

    def validate(self) -> None:
        self.check_index_dtype(1, allowed=K_DTYPES)
        self.check_same_dtype(0, 0)
        if self.outputs[1].dtype not in K_DTYPES:
            raise self.fail(f"TOPK_V2 indices are int16/int32/int64, not "
                            f"{self.outputs[1].dtype}")


__all__ = ["K_DTYPES", "TopKV2Base"]
