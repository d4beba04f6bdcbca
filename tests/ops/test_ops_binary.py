"""Two-input elementwise ops with broadcasting (ADD/SUB/MUL/DIV, MAXIMUM/MINIMUM,
SQUARED_DIFFERENCE, FLOOR_DIV/FLOOR_MOD, POW, ATAN2, LOGICAL_AND/OR, comparisons) against the
TFLite interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.single_op import binary_model
from op_harness import ACCUMULATE, ELEMENTWISE, check_op, rand

# pairs of input shapes that broadcast, up to rank 4
BROADCASTS = {
    "same": ((2, 3, 4), (2, 3, 4)),
    "vector": ((2, 3), (3,)),
    "outer": ((4, 1), (1, 5)),
    "rank3_rank2": ((2, 3, 4), (3, 1)),
    "rank4_rank3": ((1, 2, 3, 4), (2, 1, 4)),
    "rank4_both": ((2, 1, 3, 1), (1, 4, 1, 5)),
    "one_element": ((1,), (2, 3, 4, 5)),
    "scalar": ((), (3, 4)),
}


def nonzero(rng: np.random.Generator, shape, dtype: str = "float32") -> np.ndarray:
    """Values away from zero (for divisors): 0.5..2 or 1..4 in magnitude, random sign."""
    sign = np.where(rng.random(shape) < 0.5, -1, 1)
    if np.dtype(dtype).kind == "i":
        return (sign * rng.integers(1, 5, size=shape)).astype(dtype)
    return (sign * rng.uniform(0.5, 2.0, size=shape)).astype(dtype)


@pytest.mark.parametrize("shapes", list(BROADCASTS))
@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "DIV"])
def test_arithmetic_float(backend, rng, op, shapes):
    sa, sb = BROADCASTS[shapes]
    b = nonzero(rng, sb) if op == "DIV" else rand(rng, sb)
    check_op(binary_model(op, sa, sb), [rand(rng, sa), b], backend, **ELEMENTWISE)


@pytest.mark.parametrize("op,act", [("ADD", "RELU"), ("SUB", "RELU_N1_TO_1"),
                                    ("MUL", "RELU6"), ("DIV", "RELU")])
def test_arithmetic_fused_activation(backend, rng, op, act):
    sa, sb = (2, 3, 4), (3, 4)
    b = nonzero(rng, sb) if op == "DIV" else rand(rng, sb, low=-4, high=4)
    model = binary_model(op, sa, sb, fused_activation_function=act)
    check_op(model, [rand(rng, sa, low=-4, high=4), b], backend, **ELEMENTWISE)


@pytest.mark.parametrize("shapes", ["same", "vector", "rank4_both", "scalar"])
@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL"])
def test_arithmetic_int32(backend, rng, op, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, "int32", -100, 100), rand(rng, sb, "int32", -100, 100)]
    check_op(binary_model(op, sa, sb, "int32"), inputs, backend)


def test_add_int32_fused_relu(backend, rng):
    inputs = [rand(rng, (3, 4), "int32", -10, 10), rand(rng, (4,), "int32", -10, 10)]
    check_op(binary_model("ADD", (3, 4), (4,), "int32", fused_activation_function="RELU"),
             inputs, backend)


@pytest.mark.parametrize("shapes", ["same", "rank4_both"])
def test_div_int32_truncates(backend, rng, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, "int32", -50, 50), nonzero(rng, sb, "int32")]
    check_op(binary_model("DIV", sa, sb, "int32"), inputs, backend)


@pytest.mark.parametrize("shapes", ["same", "rank3_rank2", "rank4_both", "scalar"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
def test_maximum_minimum(backend, rng, op, dtype, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, dtype, -5, 5), rand(rng, sb, dtype, -5, 5)]
    check_op(binary_model(op, sa, sb, dtype), inputs, backend, **ELEMENTWISE)


@pytest.mark.parametrize("shapes", ["same", "vector", "rank4_both"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_squared_difference(backend, rng, dtype, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, dtype, -20, 20), rand(rng, sb, dtype, -20, 20)]
    check_op(binary_model("SQUARED_DIFFERENCE", sa, sb, dtype), inputs, backend, **ELEMENTWISE)


@pytest.mark.parametrize("shapes", ["same", "rank4_both"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("op", ["FLOOR_DIV", "FLOOR_MOD"])
def test_floor_div_mod(backend, rng, op, dtype, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, dtype, -20, 20), nonzero(rng, sb, dtype)]
    check_op(binary_model(op, sa, sb, dtype), inputs, backend, **ELEMENTWISE)


def test_floor_div_float_inexact_quotients(backend):
    """Quotients that round up to an integer in float32 (1 / 0.1 == 10.0f): floor(a / b)."""
    a = np.array([1, 2, 3, 0.3, -1, 7, 0.7, -0.3], np.float32)
    b = np.array([0.1, 0.2, 0.1, 0.1, 0.1, 0.7, 0.1, 0.1], np.float32)
    check_op(binary_model("FLOOR_DIV", a.shape, b.shape), [a, b], backend)


@pytest.mark.parametrize("op,dtype", [("ADD", "int64"), ("MAXIMUM", "int64"), ("LESS", "int64")])
def test_int64(backend, rng, op, dtype):
    inputs = [rand(rng, (3, 4), dtype, -1000, 1000), rand(rng, (4,), dtype, -1000, 1000)]
    out = "bool" if op == "LESS" else dtype
    check_op(binary_model(op, (3, 4), (4,), dtype, out_dtype=out), inputs, backend)


@pytest.mark.parametrize("op", ["ADD", "MUL", "SUB", "DIV", "MAXIMUM", "GREATER"])
def test_constant_operand(backend, rng, op):
    """The second operand is a constant (a bias, a scale), as in converted models."""
    c = nonzero(rng, (1, 4))
    out = "bool" if op == "GREATER" else "float32"
    model = single_op_model(op, [("a", (2, 3, 4), "float32"), c], [("y", (2, 3, 4), out)])
    check_op(model, [rand(rng, (2, 3, 4))], backend, **ELEMENTWISE)


@pytest.mark.parametrize("shapes", ["same", "vector"])
def test_pow_float(backend, rng, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, low=0.1, high=3.0), rand(rng, sb, low=-2.0, high=2.0)]
    check_op(binary_model("POW", sa, sb), inputs, backend, **ACCUMULATE)


def test_pow_int32(backend, rng):
    inputs = [rand(rng, (3, 4), "int32", -5, 6), rand(rng, (4,), "int32", 0, 4)]
    check_op(binary_model("POW", (3, 4), (4,), "int32"), inputs, backend)


@pytest.mark.parametrize("shape", [(7,), (2, 3, 4, 5)])
def test_atan2(backend, rng, shape):
    """The interpreter's ATAN2 does not broadcast."""
    check_op(binary_model("ATAN2", shape, shape), [rand(rng, shape), rand(rng, shape)], backend,
             **ACCUMULATE)


@pytest.mark.parametrize("shapes", ["same", "outer"])
@pytest.mark.parametrize("op", ["LOGICAL_AND", "LOGICAL_OR"])
def test_logical_binary(backend, rng, op, shapes):
    sa, sb = BROADCASTS[shapes]
    inputs = [rand(rng, sa, "bool"), rand(rng, sb, "bool")]
    check_op(binary_model(op, sa, sb, "bool"), inputs, backend)


COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]


@pytest.mark.parametrize("shapes", ["same", "rank4_both", "scalar"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparison(backend, rng, op, dtype, shapes):
    sa, sb = BROADCASTS[shapes]
    # small integers (also as floats) so that ties occur
    inputs = [rand(rng, s, "int32", -2, 3).astype(dtype) for s in (sa, sb)]
    check_op(binary_model(op, sa, sb, dtype, out_dtype="bool"), inputs, backend)


@pytest.mark.parametrize("op", ["EQUAL", "NOT_EQUAL"])
def test_comparison_bool(backend, rng, op):
    inputs = [rand(rng, (3, 4), "bool"), rand(rng, (4,), "bool")]
    check_op(binary_model(op, (3, 4), (4,), "bool", out_dtype="bool"), inputs, backend)
