"""BinaryArithmetic (ADD, SUB, MUL, DIV): what every backend's kernels share.

`BinaryArithmeticBase`: the float and integer form (the dtypes of each sub-type, the checks of
binary.BinaryBase). Kernels: backends/cpu/ops/elementwise.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py. Quantized forms: backends/cpu/ops/quant/qbinary.py,
qmul.py, qdiv.py.
"""
from __future__ import annotations

from .binary import BINARY_DTYPES, ORDERED, BinaryBase


class BinaryArithmeticBase(BinaryBase):
    """ADD / SUB / MUL / DIV of unquantized tensors (the dtypes per sub-type: BINARY_DTYPES)."""

    dtypes = ORDERED
    subtype_dtypes = BINARY_DTYPES


__all__ = ["BinaryArithmeticBase"]
