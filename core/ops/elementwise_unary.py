"""ElementwiseUnary (ABS, CAST, COS, DEQUANTIZE, EXP, FLOOR, CEIL, LOG, LOGICAL_NOT, NEG, ROUND,
RSQRT, SIN, SQRT, SQUARE, ZEROS_LIKE, SIGN): the unquantized form every backend shares, with the
dtypes each sub-type accepts as TFLite's kernels do. Kernels: backends/cpu/ops/elementwise.py,
backends/acl_neon/ops/eltwise.py, backends/acl_cl/ops/elementwise.py. Quantized forms (cpu):
backends/cpu/ops/quant/qunary.py (ABS, NEG, EXP, LOG, RSQRT, SQRT) and
backends/cpu/ops/quant/quantize.py (QUANTIZE)."""
from __future__ import annotations

from .base import ANY, F32, OpKernel, dtypes
from .binary import BOOL, F32_I32, INTS

# CAST converts between every plain dtype the interpreter casts (C++ static_cast semantics)
CASTABLE = dtypes("float32", "float16", "float64", "int8", "uint8", "int16", "uint16", "int32",
                  "uint32", "int64", "bool")
# The sub-types a backend may compute (the keys) and the dtypes each accepts
UNARY_DTYPES: dict[str, frozenset | None] = {
    **dict.fromkeys(("SIN", "COS", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "FLOOR", "CEIL",
                     "ROUND"), F32),
    "ABS": dtypes("float32", "int32", "int16"), "NEG": F32 | INTS, "SIGN": F32_I32,
    "LOGICAL_NOT": BOOL, "ZEROS_LIKE": dtypes("float32", "int32", "int64"),
    "CAST": CASTABLE, "DEQUANTIZE": ANY,
}


class ElementwiseUnaryBase(OpKernel):
    """A unary op among UNARY_DTYPES' keys. DEQUANTIZE takes any input (quantized or not);
    the others refuse quantized inputs (their quantized kernels are registered apart)."""

    dtypes = ANY
    subtype_dtypes = UNARY_DTYPES

    @classmethod
    def supports(cls, op, graph):
        if op.subtype not in UNARY_DTYPES:
            return False, f"{cls.backend_id} has no {op.subtype} kernel yet"
        x = graph.operands[op.inputs[0]]
        if op.subtype == "DEQUANTIZE":
            return True, ""
        if x.is_quantized:
            return False, f"{cls.backend_id} has no quantized {op.subtype} kernel yet"
        return super().supports(op, graph)


__all__ = ["CASTABLE", "UNARY_DTYPES", "ElementwiseUnaryBase"]
