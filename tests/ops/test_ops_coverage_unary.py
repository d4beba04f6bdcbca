"""Coverage of the one-input ops over the dtypes the TFLite interpreter accepts: unary math
in float32 and ints, CAST between every supported pair, every activation (GELU both ways,
LEAKY_RELU alpha, PRELU with broadcast alpha)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.single_op import unary_model
from op_harness import ACCUMULATE, ELEMENTWISE, check_op, rand

SHAPE = (2, 3, 4)

INT_UNARY = [("ABS", "int32"), ("ABS", "int16"), ("NEG", "int32"), ("NEG", "int64"),
             ("NEG", "int16"), ("NEG", "int8"), ("SIGN", "int32"), ("ZEROS_LIKE", "int64")]


@pytest.mark.parametrize("op,dtype", INT_UNARY)
def test_unary_int(backend, rng, op, dtype):
    x = rand(rng, SHAPE, dtype, -100, 100)
    x.flat[0] = 0
    check_op(unary_model(op, SHAPE, dtype), [x], backend)


@pytest.mark.parametrize("shape", [(), (7,), (1, 2, 1, 2, 3, 2)])
@pytest.mark.parametrize("op", ["ABS", "NEG", "SIN", "COS", "EXP", "LOG", "SQRT", "RSQRT",
                                "SQUARE", "FLOOR", "CEIL", "ROUND", "SIGN"])
def test_unary_float_ranks(backend, rng, op, shape):
    low = 0.1 if op in ("LOG", "SQRT", "RSQRT") else -3
    check_op(unary_model(op, shape), [rand(rng, shape, low=low, high=3)], backend, **ACCUMULATE)


def test_round_halves(backend):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.49], np.float32)
    check_op(unary_model("ROUND", x.shape), [x], backend)


CAST_TYPES = ["float32", "int32", "int64", "bool", "uint8", "int8", "int16", "float16"]


def cast_input(rng, src: str, dst: str) -> np.ndarray:
    """Values that every destination holds exactly (no out-of-range float -> int casts)."""
    if src == "bool":
        return rand(rng, SHAPE, "bool")
    low = 0 if dst in ("uint8", "bool") or src == "uint8" else -100
    x = rand(rng, SHAPE, "int32", low, 100).astype(src)
    if np.dtype(src).kind == "f":
        x = (x + np.float32(0.25) * rng.integers(0, 4, SHAPE)).astype(src)  # fractions
    x.flat[:2] = 0
    return x


@pytest.mark.parametrize("dst", CAST_TYPES)
@pytest.mark.parametrize("src", CAST_TYPES)
def test_cast_pairs(backend, rng, src, dst):
    model = unary_model("CAST", SHAPE, src, out_dtype=dst)
    check_op(model, [cast_input(rng, src, dst)], backend)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 4), (64,)])
def test_gelu(backend, rng, approximate, shape):
    x = rand(rng, shape, low=-6, high=6)
    check_op(unary_model("GELU", shape, approximate=approximate), [x], backend, **ACCUMULATE)


@pytest.mark.parametrize("alpha", [0.0, 0.3, -0.5, 2.0])
def test_leaky_relu_alpha(backend, rng, alpha):
    check_op(unary_model("LEAKY_RELU", SHAPE, alpha=alpha), [rand(rng, SHAPE, low=-3, high=3)],
             backend, **ELEMENTWISE)


@pytest.mark.parametrize("shape", [(), (5,), (1, 2, 1, 2, 3, 2)])
@pytest.mark.parametrize("op", ["RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "ELU",
                                "HARD_SWISH", "LOGISTIC", "TANH", "GELU", "LEAKY_RELU"])
def test_activation_ranks(backend, rng, op, shape):
    x = rand(rng, shape, low=-8, high=8)
    check_op(unary_model(op, shape), [x], backend, **ACCUMULATE)


# (input shape, alpha shape, output shape); the interpreter refuses an alpha that would widen
# the output (it needs output shape == input shape)
PRELU = {
    "channel": ((2, 3, 4, 5), (5,), (2, 3, 4, 5)),
    "hw_channel": ((2, 3, 4, 5), (1, 4, 5), (2, 3, 4, 5)),
    "scalar_like": ((2, 3, 4), (1, 1, 1), (2, 3, 4)),
    "rank5": ((1, 2, 3, 2, 4), (3, 1, 4), (1, 2, 3, 2, 4)),
}


@pytest.mark.parametrize("const", [True, False])
@pytest.mark.parametrize("case", list(PRELU))
def test_prelu_broadcast(backend, rng, case, const):
    xs, als, ys = PRELU[case]
    alpha = rand(rng, als, low=-1, high=1)
    spec = alpha if const else ("alpha", als, "float32")
    model = single_op_model("PRELU", [("x", xs, "float32"), spec], [("y", ys, "float32")])
    inputs = [rand(rng, xs)] + ([] if const else [alpha])
    check_op(model, inputs, backend, **ELEMENTWISE)
