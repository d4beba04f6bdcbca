"""Coverage of the two-input elementwise ops over every dtype the TFLite interpreter accepts:
arithmetic up to rank 6 with fused activations, FLOOR_DIV/FLOOR_MOD/POW/MAXIMUM/MINIMUM/
SQUARED_DIFFERENCE/ATAN2, comparisons and LOGICAL_AND/OR."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder
from builders.single_op import binary_model
from op_harness import ELEMENTWISE, check_op, rand

RANK6 = ((2, 1, 3, 1, 2, 3), (1, 2, 1, 2, 1, 3))
RANK5 = ((2, 1, 3, 2, 3), (2, 1, 1, 3))


def nonzero(rng, shape, dtype):
    sign = np.where(rng.random(shape) < 0.5, -1, 1)
    if np.dtype(dtype).kind in "iu":
        return (sign * rng.integers(1, 5, size=shape)).astype(dtype)
    return (sign * rng.uniform(0.5, 2.0, size=shape)).astype(dtype)


def positive(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 5, size=shape).astype(dtype)
    return rng.uniform(0.5, 2.0, size=shape).astype(dtype)


# (unquantized int8/uint8 ADD/SUB abort the interpreter, its MUL/DIV of them are quantized-only)
ARITH_DTYPES = [("ADD", "float32"), ("ADD", "int32"), ("ADD", "int64"), ("ADD", "int16"),
                ("SUB", "float32"), ("SUB", "int32"), ("SUB", "int64"),
                ("MUL", "float32"), ("MUL", "int32"), ("MUL", "int64"), ("MUL", "int16"), ("MUL", "int16"),
                ("DIV", "float32"), ("DIV", "int32")]


@pytest.mark.parametrize("shapes", [RANK5, RANK6], ids=["rank5", "rank6"])
@pytest.mark.parametrize("op,dtype", ARITH_DTYPES)
def test_arithmetic_high_rank(backend, rng, op, dtype, shapes):
    sa, sb = shapes
    b = nonzero(rng, sb, dtype) if op == "DIV" else rand(rng, sb, dtype, -50, 50)
    check_op(binary_model(op, sa, sb, dtype), [rand(rng, sa, dtype, -50, 50), b], backend,
             **ELEMENTWISE)


@pytest.mark.parametrize("act", ["RELU", "RELU6", "RELU_N1_TO_1"])
@pytest.mark.parametrize("op,dtype", ARITH_DTYPES)
def test_arithmetic_activation(backend, rng, op, dtype, act):
    sa, sb = (2, 3, 4), (3, 1)
    b = nonzero(rng, sb, dtype) if op == "DIV" else rand(rng, sb, dtype, -8, 8)
    model = binary_model(op, sa, sb, dtype, fused_activation_function=act)
    check_op(model, [rand(rng, sa, dtype, -8, 8), b], backend, **ELEMENTWISE)


BINARY_DTYPES = [
    ("FLOOR_DIV", "float32"), ("FLOOR_DIV", "int32"), ("FLOOR_DIV", "int16"),
    ("FLOOR_DIV", "int8"), ("FLOOR_MOD", "float32"), ("FLOOR_MOD", "int32"),
    ("FLOOR_MOD", "int64"), ("FLOOR_MOD", "int16"), ("FLOOR_MOD", "int8"),
    ("POW", "float32"), ("POW", "int32"),
    ("MAXIMUM", "float32"), ("MAXIMUM", "int32"), ("MAXIMUM", "int64"), ("MAXIMUM", "int8"),
    ("MAXIMUM", "uint8"), ("MAXIMUM", "int16"),
    ("MINIMUM", "float32"), ("MINIMUM", "int32"), ("MINIMUM", "int64"), ("MINIMUM", "int8"),
    ("MINIMUM", "uint8"), ("MINIMUM", "int16"),
    ("SQUARED_DIFFERENCE", "float32"), ("SQUARED_DIFFERENCE", "int32"),
]


@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 4)), ((2, 1, 4), (3, 1)), RANK5],
                         ids=["same", "broadcast", "rank5"])
@pytest.mark.parametrize("op,dtype", BINARY_DTYPES)
def test_elementwise_binary(backend, rng, op, dtype, shapes):
    sa, sb = shapes
    lo = 0 if dtype == "uint8" else -9
    a = rand(rng, sa, dtype, lo, 10)
    if op in ("FLOOR_DIV", "FLOOR_MOD"):
        b = positive(rng, sb, dtype) if dtype == "uint8" else nonzero(rng, sb, dtype)
    elif op == "POW":
        a = positive(rng, sa, dtype)
        b = rng.integers(0, 4, size=sb).astype(dtype) if dtype == "int32" else \
            rand(rng, sb, dtype, -2, 2)
    else:
        b = rand(rng, sb, dtype, lo, 10)
    check_op(binary_model(op, sa, sb, dtype), [a, b], backend, **ELEMENTWISE)


COMPARISONS = ["EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"]


# (unquantized int8/uint8 comparisons abort the interpreter: they are quantized-only there)
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "int16"])
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparison_dtypes(backend, rng, op, dtype):
    sa, sb = (2, 1, 3, 4), (3, 1)
    lo = 0 if dtype == "uint8" else -3
    inputs = [rand(rng, sa, dtype, lo, 3), rand(rng, sb, dtype, lo, 3)]
    reference = not_equal_reference(sa, sb, dtype) if (op, dtype) == ("NOT_EQUAL", "int16") \
        else None
    check_op(binary_model(op, sa, sb, dtype, out_dtype="bool"), inputs, backend,
             reference=reference)


def not_equal_reference(sa, sb, dtype: str) -> bytes:
    """LOGICAL_NOT(EQUAL(a, b)): the interpreter's int16 NOT_EQUAL answers EQUAL's result."""
    b = ModelBuilder()
    x, y = b.add_input("a", sa, dtype), b.add_input("b", sb, dtype)
    out = tuple(np.broadcast_shapes(sa, sb))
    eq, ne = b.add_tensor("eq", out, "bool"), b.add_tensor("ne", out, "bool")
    b.add_op("EQUAL", [x, y], [eq])
    b.add_op("LOGICAL_NOT", [eq], [ne])
    b.add_output(ne)
    return b.build()


@pytest.mark.parametrize("op", ["EQUAL", "NOT_EQUAL"])
def test_comparison_bool(backend, rng, op):
    inputs = [rand(rng, (3, 4), "bool"), rand(rng, (4,), "bool")]
    check_op(binary_model(op, (3, 4), (4,), "bool", out_dtype="bool"), inputs, backend)


@pytest.mark.parametrize("op", COMPARISONS)
def test_comparison_rank6(backend, rng, op):
    sa, sb = RANK6
    inputs = [rand(rng, sa, "int32", -2, 2), rand(rng, sb, "int32", -2, 2)]
    check_op(binary_model(op, sa, sb, "int32", out_dtype="bool"), inputs, backend)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), RANK5],
                         ids=["same", "broadcast", "rank5"])
@pytest.mark.parametrize("op", ["LOGICAL_AND", "LOGICAL_OR"])
def test_logical(backend, rng, op, shapes):
    sa, sb = shapes
    check_op(binary_model(op, sa, sb, "bool"), [rand(rng, sa, "bool"), rand(rng, sb, "bool")],
             backend)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), (1, 2, 1, 2, 3, 2)])
def test_atan2(backend, rng, shape):
    """The interpreter's ATAN2 takes equal shapes only (no broadcasting)."""
    a, b = rand(rng, shape), rand(rng, shape)
    b.flat[0] = 0.0
    check_op(binary_model("ATAN2", shape, shape), [a, b], backend, **ELEMENTWISE)


@pytest.mark.parametrize("op,dtype", [("ADD", "int16"), ("MUL", "int16"), ("MUL", "int32"),
                                      ("ADD", "int32"), ("SUB", "int64")])
def test_integer_wraparound(backend, op, dtype):
    """Integer results wrap around on overflow, as the interpreter's do."""
    info = np.iinfo(dtype)
    a = np.array([info.max - 3, info.min + 3, 200, -7], dtype)
    b = np.array([info.max - 1, info.min + 1, 300, 5], dtype)
    with np.errstate(over="ignore"):
        check_op(binary_model(op, (4,), (4,), dtype), [a, b], backend)
