"""One-input elementwise ops (ElementwiseActivation, ElementwiseUnary, CAST, DEQUANTIZE) against
the TFLite interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder
from builders.single_op import unary_model
from op_harness import ACCUMULATE, ELEMENTWISE, check_op, rand

SHAPE = (2, 3, 4, 5)

# op -> (low, high, tolerances): input range and comparison
ACTIVATIONS = {
    "RELU": (-3, 3, ELEMENTWISE),
    "RELU6": (-3, 9, ELEMENTWISE),
    "RELU_N1_TO_1": (-3, 3, ELEMENTWISE),
    "RELU_0_TO_1": (-2, 2, ELEMENTWISE),
    "LOGISTIC": (-8, 8, ACCUMULATE),
    "TANH": (-4, 4, ACCUMULATE),
    "HARD_SWISH": (-5, 5, ELEMENTWISE),
    "ELU": (-4, 4, ACCUMULATE),
}


@pytest.mark.parametrize("op", list(ACTIVATIONS))
def test_activation(backend, rng, op):
    low, high, tol = ACTIVATIONS[op]
    check_op(unary_model(op, SHAPE), [rand(rng, SHAPE, low=low, high=high)], backend, **tol)


@pytest.mark.parametrize("shape", [(7,), (1, 5, 5, 3)])
@pytest.mark.parametrize("op", ["RELU", "LOGISTIC", "TANH"])
def test_activation_other_ranks(backend, rng, op, shape):
    check_op(unary_model(op, shape), [rand(rng, shape, low=-4, high=4)], backend, **ACCUMULATE)


@pytest.mark.parametrize("alpha", [0.2, 0.01, 1.5, None])
def test_leaky_relu(backend, rng, alpha):
    options = {} if alpha is None else {"alpha": alpha}   # None: the schema's default
    check_op(unary_model("LEAKY_RELU", SHAPE, **options), [rand(rng, SHAPE, low=-3, high=3)],
             backend, **ELEMENTWISE)


# op -> (input dtype, low, high, tolerances)
UNARY = {
    "NEG": ("float32", -3, 3, ELEMENTWISE),
    "ABS": ("float32", -3, 3, ELEMENTWISE),
    "SQUARE": ("float32", -3, 3, ELEMENTWISE),
    "FLOOR": ("float32", -3, 3, ELEMENTWISE),
    "CEIL": ("float32", -3, 3, ELEMENTWISE),
    "SIGN": ("float32", -3, 3, ELEMENTWISE),
    "EXP": ("float32", -4, 4, ACCUMULATE),
    "LOG": ("float32", 0.05, 20, ACCUMULATE),
    "SQRT": ("float32", 0.0, 20, ACCUMULATE),
    "RSQRT": ("float32", 0.05, 20, ACCUMULATE),
    "SIN": ("float32", -4, 4, ACCUMULATE),
    "COS": ("float32", -4, 4, ACCUMULATE),
    "ZEROS_LIKE": ("float32", -3, 3, ELEMENTWISE),
}


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_float(backend, rng, op):
    dtype, low, high, tol = UNARY[op]
    check_op(unary_model(op, SHAPE, dtype), [rand(rng, SHAPE, dtype, low, high)], backend, **tol)


@pytest.mark.parametrize("op", ["NEG", "ABS", "SIGN", "ZEROS_LIKE"])
def test_unary_int32(backend, rng, op):
    check_op(unary_model(op, SHAPE, "int32"), [rand(rng, SHAPE, "int32", -50, 50)], backend)


def test_round_half_to_even(backend, rng):
    x = np.concatenate([np.arange(-3.5, 4.0, 0.5), rand(rng, (25,), low=-5, high=5)])
    x = x.astype(np.float32)
    check_op(unary_model("ROUND", x.shape), [x], backend)


def test_logical_not(backend, rng):
    check_op(unary_model("LOGICAL_NOT", SHAPE, "bool"), [rand(rng, SHAPE, "bool")], backend)


# (input dtype, output dtype, low, high)
CASTS = {
    "f32_i32": ("float32", "int32", -100, 100),
    "i32_f32": ("int32", "float32", -1000, 1000),
    "f32_bool": ("float32", "bool", -1, 1),
    "bool_f32": ("bool", "float32", 0, 1),
    "i32_bool": ("int32", "bool", -2, 3),
    "bool_i32": ("bool", "int32", 0, 1),
    "i32_i64": ("int32", "int64", -1000, 1000),
    "i64_i32": ("int64", "int32", -1000, 1000),
    "u8_f32": ("uint8", "float32", 0, 256),
    "f32_u8": ("float32", "uint8", 0, 255),
    "i64_f32": ("int64", "float32", -1000, 1000),
}


@pytest.mark.parametrize("case", list(CASTS))
def test_cast(backend, rng, case):
    src, dst, low, high = CASTS[case]
    x = rand(rng, SHAPE, src, low, high)
    if src == "float32":
        x.flat[:3] = 0   # exact zeros (false as bool)
    model = unary_model("CAST", SHAPE, src, out_dtype=dst)
    check_op(model, [x], backend)


def test_cast_float_exact_zeros_to_bool(backend):
    x = np.array([0.0, -0.0, 1e-30, -2.5, 0.0], np.float32)
    check_op(unary_model("CAST", x.shape, "float32", out_dtype="bool"), [x], backend)


def dequantize_add_model(const: np.ndarray, quant: dict | None = None) -> bytes:
    """y = x + DEQUANTIZE(const): a constant weight dequantized once, then used."""
    b = ModelBuilder()
    x = b.add_input("x", const.shape, "float32")
    c = b.add_const("c", const, quant=quant)
    d = b.add_tensor("d", const.shape, "float32")
    b.add_op("DEQUANTIZE", [c], [d])
    y = b.add_tensor("y", const.shape, "float32")
    b.add_op("ADD", [x, d], [y])
    b.add_output(y)
    return b.build()


def test_dequantize_float16_const(backend, rng):
    w = rand(rng, (3, 4, 5), "float16", -10, 10)
    check_op(dequantize_add_model(w), [rand(rng, (3, 4, 5))], backend, **ELEMENTWISE)


def test_dequantize_float16_const_output(backend, rng):
    """The dequantized constant is itself the model's output."""
    b = ModelBuilder()
    x = b.add_input("x", (2, 3), "float32")
    c = b.add_const("c", rand(rng, (2, 3), "float16", -4, 4))
    d = b.add_tensor("d", (2, 3), "float32")
    b.add_op("DEQUANTIZE", [c], [d])
    y = b.add_tensor("y", (2, 3), "float32")
    b.add_op("MUL", [x, d], [y])
    b.add_output(d)
    b.add_output(y)
    check_op(b.build(), [rand(rng, (2, 3))], backend, **ELEMENTWISE)


def test_dequantize_float16_input(backend, rng):
    model = unary_model("DEQUANTIZE", SHAPE, "float16", out_dtype="float32")
    check_op(model, [rand(rng, SHAPE, "float16", -10, 10)], backend, **ELEMENTWISE)


def test_dequantize_int8_const(backend, rng):
    w = rand(rng, (4, 6), "int8", -128, 128)
    q = {"scale": [0.05], "zero_point": [3]}
    check_op(dequantize_add_model(w, q), [rand(rng, (4, 6))], backend, **ELEMENTWISE)


def test_dequantize_uint8_const(backend, rng):
    w = rand(rng, (3, 5), "uint8", 0, 256)
    q = {"scale": [0.02], "zero_point": [128]}
    check_op(dequantize_add_model(w, q), [rand(rng, (3, 5))], backend, **ELEMENTWISE)


@pytest.mark.parametrize("op", ["RELU", "ABS", "EXP", "LOGISTIC"])
def test_unary_scalar(backend, rng, op):
    check_op(unary_model(op, ()), [rand(rng, ())], backend, **ACCUMULATE)


def test_dequantize_int8_per_channel_const(backend, rng):
    w = rand(rng, (4, 6), "int8", -127, 128)
    q = {"scale": [0.1, 0.02, 0.5, 0.003], "zero_point": [0, 0, 0, 0], "quantized_dimension": 0}
    check_op(dequantize_add_model(w, q), [rand(rng, (4, 6))], backend, **ELEMENTWISE)
