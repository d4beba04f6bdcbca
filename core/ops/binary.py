"""The broadcasting binary ops' family base (BinaryArithmetic, SquaredDifference,
ElementwiseBinary, Comparison): the dtypes each sub-type accepts for unquantized tensors, as
TFLite's kernels accept them (int8/uint8 arithmetic and comparisons there are quantized-only),
and the Prepare-time checks every backend runs (one dtype on both inputs, shapes that broadcast
to the output). The ops' own bases: binary_arithmetic.py, squared_difference.py,
elementwise_binary.py, comparison.py."""
from __future__ import annotations

import numpy as np

from .base import F32, OpKernel, dtypes

BOOL = dtypes("bool")
U8 = dtypes("uint8")
F32_I32 = dtypes("float32", "int32")
INTS = dtypes("int32", "int64", "int16", "int8")
ORDERED = dtypes("float32", "int32", "int64", "int16")
# What each sub-type accepts, as TFLite's kernels do for unquantized tensors (int8/uint8
# arithmetic and comparisons there are quantized-only).
BINARY_DTYPES = {
    "ADD": ORDERED, "SUB": dtypes("float32", "int32", "int64"), "MUL": ORDERED,
    "DIV": F32_I32, "FLOOR_DIV": dtypes("float32", "int32", "int16", "int8"),
    "FLOOR_MOD": F32 | INTS, "POW": F32_I32, "MAXIMUM": F32 | INTS | U8,
    "MINIMUM": F32 | INTS | U8, "LOGICAL_AND": BOOL, "LOGICAL_OR": BOOL,
    "ATAN2": F32, "SquaredDifference": F32_I32,
    "EQUAL": ORDERED | BOOL, "NOT_EQUAL": ORDERED | BOOL, "GREATER": ORDERED,
    "GREATER_EQUAL": ORDERED, "LESS": ORDERED, "LESS_EQUAL": ORDERED,
}


class BinaryBase(OpKernel):
    """out = a (op) b with NumPy broadcasting: both inputs of one dtype, and their shapes
    broadcast to the output's."""

    def validate(self) -> None:
        a, b = self.inputs[0], self.inputs[1]
        if a.dtype != b.dtype:
            raise self.fail(f"inputs have different dtypes {a.dtype} and {b.dtype}")
        try:
            np.broadcast_shapes(a.shape, b.shape, self.outputs[0].shape)
        except ValueError:
            raise self.fail(f"input shapes {a.shape} and {b.shape} do not broadcast to "
                            f"{self.outputs[0].shape}") from None


__all__ = ["BOOL", "U8", "F32", "F32_I32", "INTS", "ORDERED", "BINARY_DTYPES", "BinaryBase"]
