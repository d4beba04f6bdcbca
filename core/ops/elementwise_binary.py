"""ElementwiseBinary (MAXIMUM, MINIMUM, FLOOR_DIV, FLOOR_MOD, POW, LOGICAL_AND, LOGICAL_OR,
ATAN2): the unquantized form every backend shares (the dtypes of each sub-type,
binary.BinaryBase's checks). Kernels: backends/cpu/ops/elementwise.py,
backends/acl_neon/ops/eltwise.py, backends/acl_cl/ops/elementwise.py; quantized MAXIMUM /
MINIMUM: backends/cpu/ops/quant/qcompare.py."""
from __future__ import annotations

from .binary import BINARY_DTYPES, BOOL, F32, INTS, U8, BinaryBase


class ElementwiseBinaryBase(BinaryBase):
    """An ElementwiseBinary sub-type of unquantized tensors (dtypes: BINARY_DTYPES)."""

    dtypes = F32 | INTS | U8 | BOOL
    subtype_dtypes = BINARY_DTYPES


__all__ = ["ElementwiseBinaryBase"]
