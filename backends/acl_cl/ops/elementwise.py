"""BinaryArithmetic (with broadcasting and fused clamp), SquaredDifference, Maximum/Minimum/Pow,
PReLU, ElementwiseActivation, the float ElementwiseUnary ops, Comparison (-> bool) and
LOGICAL_AND/OR. Quantized ADD/SUB/MUL: quant_binary.py."""
from __future__ import annotations

import numpy as np

from .common import BOOL, ClKernel, bcast_meta, check_act, clamp_of, register

BINARY = {"ADD": 0, "SUB": 1, "MUL": 2, "DIV": 3, "SquaredDifference": 4, "MAXIMUM": 5,
          "MINIMUM": 6, "POW": 7, "PReLU": 8}
UNARY = {"RELU": 0, "RELU6": 1, "RELU_N1_TO_1": 2, "RELU_0_TO_1": 3, "LOGISTIC": 4, "TANH": 5,
         "LEAKY_RELU": 6, "HARD_SWISH": 7, "ELU": 8, "NEG": 9, "RSQRT": 10, "SQRT": 11,
         "EXP": 12, "ABS": 13, "SQUARE": 14, "LOG": 15, "SIN": 16, "COS": 17, "FLOOR": 18,
         "CEIL": 19, "GELU": 20}


@register("BinaryArithmetic", "SquaredDifference", "ElementwiseBinary.MAXIMUM",
          "ElementwiseBinary.MINIMUM", "ElementwiseBinary.POW", "PReLU")
class BinaryLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if op.type == "BinaryArithmetic":
            return check_act(op)
        return True, ""

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        code = np.int32(BINARY[self.op.type if self.op.type in BINARY else self.op.subtype])
        lo, hi = clamp_of(self.op)
        n = np.int32(y.size)
        opts = f"-DOPC={int(code)}"
        if a.shape == b.shape == y.shape or (a.shape == y.shape and b.size == 1):
            knl = self.kernel("elementwise.cl", "binary_flat", opts)
            step = np.int32(0 if b.size == 1 and b.shape != y.shape else 1)
            self.launch(knl, (y.size,), None, a.buffer, b.buffer, y.buffer, code, step, lo, hi, n)
            return
        r = len(y.shape)
        if r > 6:
            raise self.fail(f"broadcasting over rank {r} (acl_cl handles up to 6)")
        for full, vec, swap in ((a, b, 0), (b, a, 1)):
            if full.shape != y.shape or not r:
                continue
            lead = tuple(vec.shape[:-1])
            lead = (1,) * (r - 1 - len(lead)) + lead
            last = vec.size == y.shape[-1] and (not vec.shape or vec.shape[-1] == y.shape[-1])
            rows = bool(vec.shape) and vec.shape[-1] == 1 and lead == tuple(y.shape[:-1])
            if last or rows:        # a vector over the last dim, or a value per row
                knl = self.kernel("elementwise.cl", "binary_lastdim", opts)
                self.launch(knl, (y.size,), None, full.buffer, vec.buffer, y.buffer, code,
                            np.int32(y.shape[-1]), np.int32(swap), lo, hi, n,
                            np.int32(rows and not last))
                return
        self.meta = self.const_buffer(bcast_meta(a.shape, b.shape, y.shape))
        knl = self.kernel("elementwise.cl", "binary_bcast", opts)
        self.launch(knl, (y.size,), None, a.buffer, b.buffer, y.buffer, self.meta, code, lo, hi, n)


@register(*(f"ElementwiseActivation.{k}" for k in ("RELU", "RELU6", "RELU_N1_TO_1",
                                                     "RELU_0_TO_1", "LOGISTIC", "TANH",
                                                     "LEAKY_RELU", "HARD_SWISH", "ELU", "GELU")),
          *(f"ElementwiseUnary.{k}" for k in ("NEG", "RSQRT", "SQRT", "EXP", "ABS", "SQUARE",
                                                "LOG", "SIN", "COS", "FLOOR", "CEIL")))
class UnaryLayer(ClKernel):
    @classmethod
    def check_params(cls, op, graph):
        if op.subtype == "GELU" and op.params.get("approximate", False):
            return False, "acl_cl GELU computes the exact form only, not approximate=True"
        return True, ""

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        alpha = np.float32(self.op.params.get("alpha", 0.0) or 0.0)
        knl = self.kernel("elementwise.cl", "unary", f"-DOPC={UNARY[self.op.subtype]}")
        self.launch(knl, (y.size,), None, x.buffer, y.buffer, np.int32(UNARY[self.op.subtype]),
                    alpha, np.int32(y.size))


COMPARE = {"EQUAL": 0, "NOT_EQUAL": 1, "GREATER": 2, "GREATER_EQUAL": 3, "LESS": 4,
           "LESS_EQUAL": 5}


class BroadcastLayer(ClKernel):
    """y = a (op) b with broadcasting over rank <= 6: `kernel_name` of indexing.cl, `code()`."""

    kernel_name: str

    def code(self) -> int:
        raise NotImplementedError

    def setup(self) -> None:
        a, b, y = self.inputs[0], self.inputs[1], self.outputs[0]
        if len(y.shape) > 6:
            raise self.fail("broadcasting over rank > 6")
        self.meta = self.const_buffer(bcast_meta(a.shape, b.shape, y.shape))
        self.launch(self.kernel("indexing.cl", self.kernel_name), (y.size,), None, a.buffer,
                    b.buffer, y.buffer, self.meta, np.int32(self.code()), np.int32(y.size))


@register(*(f"Comparison.{k}" for k in COMPARE))
class ComparisonLayer(BroadcastLayer):
    out_types = BOOL
    kernel_name = "compare_bcast"

    def code(self) -> int:
        return COMPARE[self.op.subtype]


@register("ElementwiseBinary.LOGICAL_AND", "ElementwiseBinary.LOGICAL_OR")
class LogicalLayer(BroadcastLayer):
    in_types = out_types = BOOL
    kernel_name = "logical_bcast"

    def code(self) -> int:
        return self.op.subtype == "LOGICAL_OR"
