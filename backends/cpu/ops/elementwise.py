"""Elementwise ops on cpu: BinaryArithmetic, ElementwiseBinary, Comparison, SquaredDifference,
ElementwiseActivation, ElementwiseUnary. Each writes straight into its output with `out=`.

What every backend shares (dtypes per sub-type, the broadcasting check): core/ops/binary.py,
binary_arithmetic.py, squared_difference.py, elementwise_binary.py, comparison.py,
elementwise_activation.py, elementwise_unary.py. PReLU: prelu.py. Quantized forms:
quant/qbinary_arithmetic.py (ADD, SUB, MUL, DIV), quant/qsqdiff.py (SQUARED_DIFFERENCE),
quant/qcompare.py (comparisons, MAXIMUM, MINIMUM), quant/qactivation.py, quant/qhardswish.py,
quant/qtanh16.py (activations), quant/qunary.py (ABS, NEG, EXP, LOG, RSQRT, SQRT) and
quant/quantize.py (QUANTIZE)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ....core.backend.quantization import channel_axis, dequantize
from ....core.ops.binary import BinaryBase
from ....core.ops.binary_arithmetic import BinaryArithmeticBase
from ....core.ops.comparison import ComparisonBase
from ....core.ops.elementwise_activation import ElementwiseActivationBase
from ....core.ops.elementwise_binary import ElementwiseBinaryBase
from ....core.ops.elementwise_unary import ElementwiseUnaryBase
from ....core.ops.squared_difference import SquaredDifferenceBase
from .common import clamp_activation, register


class BinaryLayer(BinaryBase):
    """The cpu's binary kernels: out = fn(a, b) with NumPy broadcasting, then the fused
    activation if any (`fns`: the NumPy function of each sub-type)."""

    fns: dict[str, Callable] = {}

    def validate(self) -> None:
        super().validate()
        key = self.op.subtype or self.op.type
        self.fn = self.fns[key]
        # a clamp (RELU, RELU6, RELU_N1_TO_1); TFLite ignores TANH and SIGN_BIT here
        self.act = clamp_activation(self.op.params.get("fused_activation_function"))

    def run(self) -> None:
        out = self.outputs[0].buffer
        self.fn(self.inputs[0].buffer, self.inputs[1].buffer, out=out)
        if self.act is not None:
            self.act(out)


def _div(a, b, out):
    if out.dtype.kind == "f":
        return np.divide(a, b, out=out)
    return np.copyto(out, np.trunc(np.divide(a, b)).astype(out.dtype))


@register("BinaryArithmetic")
class BinaryArithmeticLayer(BinaryLayer, BinaryArithmeticBase):
    fns = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": _div}


def _squared_difference(a, b, out):
    np.subtract(a, b, out=out)
    return np.multiply(out, out, out=out)


@register("SquaredDifference")
class SquaredDifferenceLayer(BinaryLayer, SquaredDifferenceBase):
    fns = {"SquaredDifference": _squared_difference}


def _floor_mod(a, b, out):
    return np.mod(a, b, out=out)


def _maximum(a, b, out):
    """TFLite's `a > b ? a : b`: a NaN in `a` gives `b`, a NaN in `b` gives NaN."""
    np.copyto(out, np.broadcast_to(b, out.shape))
    return np.copyto(out, np.broadcast_to(a, out.shape), where=np.greater(a, b))


def _minimum(a, b, out):
    """TFLite's `a < b ? a : b` (NaN as in _maximum)."""
    np.copyto(out, np.broadcast_to(b, out.shape))
    return np.copyto(out, np.broadcast_to(a, out.shape), where=np.less(a, b))


@register("ElementwiseBinary")
class ElementwiseBinaryLayer(BinaryLayer, ElementwiseBinaryBase):
    fns = {"MAXIMUM": _maximum, "MINIMUM": _minimum, "FLOOR_DIV": np.floor_divide,
           "FLOOR_MOD": _floor_mod, "POW": np.power, "LOGICAL_AND": np.logical_and,
           "LOGICAL_OR": np.logical_or, "ATAN2": np.arctan2}


@register("Comparison")
class ComparisonLayer(BinaryLayer, ComparisonBase):
    fns = {"EQUAL": np.equal, "NOT_EQUAL": np.not_equal, "GREATER": np.greater,
           "GREATER_EQUAL": np.greater_equal, "LESS": np.less, "LESS_EQUAL": np.less_equal}


def _logistic(x, out):
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.reciprocal(out, out=out)


def _hard_swish(x, out):
    """(x * relu6(x + 3)) * (1/6), in the interpreter's order; where that product overflows
    (|x| > ~5e37) the scale goes first, as TFLite's result stays finite there."""
    np.add(x, 3, out=out)
    np.clip(out, 0, 6, out=out)
    np.multiply(out, x, out=out)
    np.multiply(out, np.float32(1 / 6), out=out)
    big = np.isinf(out) & np.isfinite(x)
    if big.any():
        out[big] = x[big] * (np.clip(x[big] + 3, 0, 6) * np.float32(1 / 6))
    return out


def _elu(x, out):
    np.expm1(np.minimum(x, 0), out=out)
    return np.copyto(out, x, where=x > 0)


def erfc(z: np.ndarray) -> np.ndarray:
    """The complementary error function in float64, with a fractional error below 1.2e-7
    everywhere (the Chebyshev fit of Numerical Recipes' erfcc)."""
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.5 * a)
    poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    r = t * np.exp(-a * a + poly)
    return np.where(z >= 0, r, 2.0 - r)


def _gelu(x, out):
    """0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2)."""
    x64 = x.astype(np.float64)
    return np.multiply(0.5 * x64, erfc(-x64 * np.sqrt(0.5)), out=out, casting="unsafe")


def _gelu_tanh(x, out):
    """The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x64 = x.astype(np.float64)
    inner = np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64 ** 3)
    return np.multiply(0.5 * x64, 1.0 + np.tanh(inner), out=out, casting="unsafe")


@register("ElementwiseActivation")
class ElementwiseActivationLayer(ElementwiseActivationBase):
    def validate(self) -> None:
        kind = self.op.subtype
        alpha = np.float32(self.op.params.get("alpha", 0.2))
        fns: dict[str, Callable] = {
            "RELU": lambda x, out: np.maximum(x, 0, out=out),
            "RELU6": lambda x, out: np.clip(x, 0, 6, out=out),
            "RELU_N1_TO_1": lambda x, out: np.clip(x, -1, 1, out=out),
            "RELU_0_TO_1": lambda x, out: np.clip(x, 0, 1, out=out),
            "TANH": lambda x, out: np.tanh(x, out=out),
            "LOGISTIC": _logistic,
            "HARD_SWISH": _hard_swish,
            "LEAKY_RELU": lambda x, out: np.multiply(x, np.where(x > 0, np.float32(1), alpha),
                                                     out=out),
            "ELU": _elu,
            "GELU": _gelu_tanh if self.op.params.get("approximate", False) else _gelu,
        }
        if kind not in fns:
            raise self.fail(f"{self.backend_id} has no {kind} kernel yet")
        self.fn = fns[kind]

    def run(self) -> None:
        self.fn(self.inputs[0].buffer, out=self.outputs[0].buffer)


def _rsqrt(x, out):
    np.sqrt(x, out=out)
    return np.reciprocal(out, out=out)


def _dequantize(kernel: ElementwiseUnaryBase) -> Callable:
    q = kernel.inputs[0].quant
    if q is None:
        return lambda x, out: np.copyto(out, x, casting="unsafe")
    return lambda x, out: dequantize(x, q.scale, q.zero_point, channel_axis(q), out=out)


# the NumPy function of each sub-type of core/ops/elementwise_unary.py's UNARY_DTYPES but
# DEQUANTIZE (_dequantize)
UNARY: dict[str, Callable] = {
    "ABS": np.abs, "NEG": np.negative, "EXP": np.exp, "LOG": np.log, "SQRT": np.sqrt,
    "RSQRT": _rsqrt, "SQUARE": np.square, "SIN": np.sin, "COS": np.cos, "FLOOR": np.floor,
    "CEIL": np.ceil, "ROUND": np.rint, "SIGN": np.sign, "LOGICAL_NOT": np.logical_not,
    "ZEROS_LIKE": lambda x, out: out.fill(0),
    "CAST": lambda x, out: np.copyto(out, x, casting="unsafe"),
}


@register("ElementwiseUnary")
class ElementwiseUnaryLayer(ElementwiseUnaryBase):
    def validate(self) -> None:
        kind = self.op.subtype
        # (DEQUANTIZE of constant weights is folded by the compiler: constant_folding.py)
        self.fn = _dequantize(self) if kind == "DEQUANTIZE" else UNARY[kind]

    def run(self) -> None:
        self.fn(self.inputs[0].buffer, out=self.outputs[0].buffer)
