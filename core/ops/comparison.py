"""Comparison (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL) into a bool tensor:
the unquantized form every backend shares (the dtypes of each sub-type, binary.BinaryBase's
checks). Kernels: backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py; the quantized form: backends/cpu/ops/quant/qcompare.py."""
from __future__ import annotations

from .binary import BINARY_DTYPES, BOOL, ORDERED, BinaryBase


class ComparisonBase(BinaryBase):
    """A comparison of two unquantized tensors of one dtype (dtypes: BINARY_DTYPES)."""

    dtypes = ORDERED | BOOL
    subtype_dtypes = BINARY_DTYPES


__all__ = ["ComparisonBase"]
