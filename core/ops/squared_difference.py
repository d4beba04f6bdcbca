"""SquaredDifference, (a - b)^2 with broadcasting: the float/int32 form every backend shares
(binary.BinaryBase's checks). Kernels: backends/cpu/ops/elementwise.py,
backends/acl_neon/ops/eltwise.py, backends/acl_cl/ops/elementwise.py; the int8 form:
backends/cpu/ops/quant/qsqdiff.py."""
from __future__ import annotations

from .binary import F32_I32, BinaryBase


class SquaredDifferenceBase(BinaryBase):
    """SQUARED_DIFFERENCE of float32 or int32 tensors."""

    dtypes = F32_I32


__all__ = ["SquaredDifferenceBase"]
