"""acl_neon's integer and bool elementwise kernels and SELECT (ops/int_eltwise.py, select.py;
csrc/eltwise/int_eltwise.cpp) with 1 and 2 threads, against the TFLite interpreter: broadcasts
(collapsed and not, flat and row-wise splits between threads), the fused clamps of integer ADD/
SUB/MUL, wrap-around on overflow over the whole range of each type, SELECT's row-picking
condition and SELECT_V2's three-way broadcast over elements of 1, 2, 4 and 8 bytes. The sessions
run on acl_neon alone, so a refused op fails to compile instead of silently running on cpu. The
control-flow models of ../shared/models then run their loops' ops on acl_neon only."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from onert_py.placement import COMPILE_FALLBACK
from builders.shared_models import model_path
from builders.single_op import binary_model, unary_model
from op_harness import assert_outputs, kernels, rand
from oracle import tflite_run

native = pytest.importorskip("onert_py.backends.acl_neon.native")
if not native.available("eltwise")[0]:
    pytest.skip(native.available("eltwise")[1], allow_module_level=True)

# (a, b): same shapes, a row against a matrix, outer products, a scalar, rank 5; then shapes
# of more than 2^16 elements, which the kernels split between threads (one flat row; rows)
BROADCASTS = [((3, 5, 7), (3, 5, 7)), ((4, 9), (9,)), ((4, 1), (1, 6)), ((), (2, 3)),
              ((2, 1, 3, 1, 5), (3, 4, 1)), ((70001,), ()), ((300, 257), (300, 1))]
COMPARISONS = ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")


@pytest.fixture(params=[1, 2])
def threads(request) -> int:
    return request.param


def check(model: bytes, inputs, threads: int, reference: bytes | None = None) -> None:
    """acl_neon alone (every op taken) equals the interpreter exactly."""
    expected = tflite_run(reference or model, list(inputs))
    with onert_py.Session(model, backends="acl_neon", config={"num_threads": threads}) as s:
        got = [np.array(g) for g in s.run(list(inputs))]
    assert_outputs(got, expected, 0, 0)


def full_range(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Integers over the whole range of `dtype` (sums and products overflow), with the
    extremes, 0 and +-1 among them."""
    info = np.iinfo(dtype)
    x = np.array(rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True))
    x.reshape(-1)[:6] = np.array([info.min, info.max, 0, 1, -1, info.max - 1])[:x.size]
    return x


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
def test_arithmetic_wraps_around(threads, rng, dtype):
    for sa, sb in BROADCASTS:
        a, b = full_range(rng, sa, dtype), full_range(rng, sb, dtype)
        for op in ("ADD", "SUB", "MUL") if dtype != "int16" else ("ADD", "MUL"):
            check(binary_model(op, sa, sb, dtype), [a, b], threads)


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
def test_arithmetic_fused_clamp(threads, rng, dtype):
    """TFLite's CalculateActivationRange for integers: RELU [0, max], RELU6 [0, 6],
    RELU_N1_TO_1 [-1, 1]; TANH has no range (the sum is not clamped)."""
    sa, sb = (3, 4, 5), (4, 1)
    a, b = rand(rng, sa, dtype, -9, 9), rand(rng, sb, dtype, -9, 9)
    for op in ("ADD", "SUB", "MUL") if dtype != "int16" else ("ADD", "MUL"):
        for act in ("RELU", "RELU6", "RELU_N1_TO_1", "TANH"):
            model = binary_model(op, sa, sb, dtype, fused_activation_function=act)
            check(model, [a, b], threads)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_maximum_minimum(threads, rng, dtype):
    for sa, sb in BROADCASTS:
        a, b = full_range(rng, sa, dtype), full_range(rng, sb, dtype)
        b.reshape(-1)[-3:] = a.reshape(-1)[-1]          # ties
        for op in ("MAXIMUM", "MINIMUM"):
            check(binary_model(op, sa, sb, dtype), [a, b], threads)


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "bool"])
def test_comparisons(threads, rng, dtype):
    """Small values (ties). The interpreter's int16 NOT_EQUAL answers EQUAL's result, so that
    one is checked against NumPy."""
    for sa, sb in BROADCASTS:
        a, b = rand(rng, sa, dtype, -2, 3), rand(rng, sb, dtype, -2, 3)
        for op in COMPARISONS if dtype != "bool" else ("EQUAL", "NOT_EQUAL"):
            model = binary_model(op, sa, sb, dtype, out_dtype="bool")
            if (op, dtype) == ("NOT_EQUAL", "int16"):
                with onert_py.Session(model, backends="acl_neon",
                                      config={"num_threads": threads}) as s:
                    np.testing.assert_array_equal(s.run([a, b])[0], a != b)
                continue
            check(model, [a, b], threads)


def test_logical(threads, rng):
    for sa, sb in BROADCASTS:
        a, b = rand(rng, sa, "bool"), rand(rng, sb, "bool")
        for op in ("LOGICAL_AND", "LOGICAL_OR"):
            check(binary_model(op, sa, sb, "bool"), [a, b], threads)
    for shape in [(), (7,), (70001,)]:
        check(unary_model("LOGICAL_NOT", shape, "bool"), [rand(rng, shape, "bool")], threads)


def select_model(op: str, c, x, y, dtype: str) -> bytes:
    out = x if op == "SELECT" else tuple(np.broadcast_shapes(c, x, y))
    return single_op_model(op, [("c", c, "bool"), ("x", x, dtype), ("y", y, dtype)],
                           [("z", out, dtype)])


# SELECT: condition of x's shape, a scalar, or rank 1 picking whole rows of x or y
SELECTS = [("SELECT", (3, 4, 5), (3, 4, 5), (3, 4, 5)), ("SELECT", (), (6, 7), (6, 7)),
           ("SELECT", (3,), (3, 4, 5), (3, 4, 5)), ("SELECT", (300,), (300, 257), (300, 257)),
           ("SELECT_V2", (2, 1, 4), (3, 1), (1, 3, 4)), ("SELECT_V2", (1, 5), (4, 1), ()),
           ("SELECT_V2", (3, 1, 6), (3, 5, 6), (6,)), ("SELECT_V2", (70001,), (70001,), ())]


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "float32", "int64"])
def test_select(threads, rng, dtype):
    """Elements of 1, 2, 4 and 8 bytes."""
    for op, c, x, y in SELECTS:
        inputs = [rng.random(c) < 0.5, rand(rng, x, dtype, -100, 100),
                  rand(rng, y, dtype, -100, 100)]
        check(select_model(op, c, x, y, dtype), inputs, threads)


def test_each_kernel_is_a_native_step(rng):
    """Every kernel of this module binds a native step (it runs inside native segments)."""
    models = [binary_model("ADD", (2, 3), (3,), "int32"), binary_model("MAXIMUM", (4,), (4,), "int8"),
              binary_model("LESS", (2, 3), (), "int64", out_dtype="bool"),
              binary_model("LOGICAL_AND", (2, 3), (3,), "bool"), unary_model("LOGICAL_NOT", (5,), "bool"),
              select_model("SELECT", (2,), (2, 3), (2, 3), "int32"),
              select_model("SELECT_V2", (1, 3), (2, 1), (3,), "float32")]
    for model in models:
        with onert_py.Session(model, backends="acl_neon") as s:
            (kernel,) = kernels(s)
            assert type(kernel).__module__.split(".")[-1] in ("int_eltwise", "select"), kernel
            assert kernel.native_step is not None, kernel


def test_broadcast_beyond_eight_dims_falls_back(rng):
    """A broadcast that keeps 9 distinct dimensions after collapsing: acl_neon's kernel refuses
    it while compiling and cpu runs the op (NumPy's result: the interpreter stops at rank 6)."""
    sa, sb = (2, 1) * 4 + (2,), (1, 2) * 4 + (1,)
    a, b = rand(rng, sa, "int32", -50, 50), rand(rng, sb, "int32", -50, 50)
    with onert_py.Session(binary_model("ADD", sa, sb, "int32"), backends="acl_neon;cpu") as s:
        np.testing.assert_array_equal(s.run([a, b])[0], a + b)
        (op,) = s.placement().ops
    assert (op.backend, op.rule) == ("cpu", COMPILE_FALLBACK)
    assert "at most 8 distinct dimensions" in op.refusals["acl_neon"]


def test_neg_select_condition_not_bool():
    model = single_op_model("SELECT_V2", [("c", (2, 3), "int32"), ("x", (2, 3), "float32"),
                                          ("y", (2, 3), "float32")], [("z", (2, 3), "float32")])
    with pytest.raises(onert_py.CompileError, match="condition must be bool"):
        onert_py.Session(model, backends="acl_neon")


@pytest.mark.parametrize("name", ["lstm_text", "control_flow"])
def test_control_flow_loops_run_on_acl_neon(name):
    """The WHILE cond and body subgraphs (int32 ADD and LESS, LOGICAL_AND) and the SELECT
    feeding the Keras LSTM have no op left on cpu: each loop's ops all have native steps."""
    path = model_path(name)
    with onert_py.Session(path, backends="acl_neon;cpu") as s:
        p = s.placement()
    on_cpu = [(sub.index, op.index, op.name) for sub in (p.primary, *p.children)
              for op in sub.ops if op.backend == "cpu"]
    assert not on_cpu, on_cpu
    assert any(op.name == "WHILE" for op in p.ops)
