"""acl_neon's eltwise group (float32 elementwise, activations, softmax, reduce, arg-min/max) at
every instruction-set level this CPU has and with 1 and 2 threads, against the TFLite
interpreter: odd shapes (vector tails), broadcasting, fused clamps, extremes (+-100, +-Inf,
NaN). The sessions run on acl_neon alone, so a refused op fails to compile instead of
silently running on cpu."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from builders.single_op import binary_model, unary_model
from op_harness import ACCUMULATE, ELEMENTWISE, assert_outputs, rand
from oracle import tflite_run

native = pytest.importorskip("onert_py.backends.acl_neon.native")
if not native.available("eltwise")[0]:
    pytest.skip(native.available("eltwise")[1], allow_module_level=True)

EXTREMES = np.array([np.nan, np.inf, -np.inf, 100, -100, 0, -0.0, 1e-40, 88.8, -88.8, 0.5,
                     -2.5, 1.5, 2.5, -0.5, 3], np.float32)


@pytest.fixture(params=native.available_isas())
def isa(request):
    before = native.active_isa()
    native.set_isa(request.param)
    yield request.param
    native.set_isa(before)


@pytest.fixture(params=[1, 2])
def threads(request):
    return request.param


def check(model: bytes, inputs, threads: int, tol=ELEMENTWISE) -> None:
    expected = tflite_run(model, list(inputs))
    session = onert_py.Session(model, backends="acl_neon", config={"num_threads": threads})
    got = session.run(list(inputs))
    assert_outputs([np.array(g) for g in got], expected, **tol)


BROADCASTS = [((3, 5, 17), (3, 5, 17)), ((1, 7, 9, 13), (13,)), ((2, 1, 5, 3), (1, 4, 1, 3)),
              ((37,), ()), ((), (5, 3)), ((4, 1), (1, 9)), ((2, 3, 1, 2, 5), (3, 4, 1, 5))]


def test_binary_arithmetic(isa, threads, rng):
    for sa, sb in BROADCASTS:
        a, b = rand(rng, sa), rand(rng, sb, low=0.5, high=2.0)
        for op in ("ADD", "SUB", "MUL", "DIV"):
            for act in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
                check(binary_model(op, sa, sb, fused_activation_function=act), [a, b], threads)


def test_binary_other(isa, threads, rng):
    for sa, sb in BROADCASTS[:4]:
        a, b = rand(rng, sa, low=-3, high=3), rand(rng, sb, low=-3, high=3)
        for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"):
            check(binary_model(op, sa, sb), [a, b], threads)
        a, b = np.round(a), np.round(b)            # ties
        for op in ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"):
            check(binary_model(op, sa, sb, out_dtype="bool"), [a, b], threads)


def test_binary_extremes(isa, threads):
    a = EXTREMES
    b = np.roll(EXTREMES, 3)
    for op in ("ADD", "MUL", "DIV", "SUB"):
        check(binary_model(op, (16,), (16,), fused_activation_function="RELU6"), [a, b], threads)
    for op in ("EQUAL", "LESS", "GREATER_EQUAL"):
        check(binary_model(op, (16,), (16,), out_dtype="bool"), [a, b], threads)


@pytest.mark.parametrize("alpha_shape", [(3,), (1, 1, 3), (5, 7, 3), ()])
def test_prelu(isa, threads, rng, alpha_shape):
    xs = (2, 5, 7, 3)
    alpha = rand(rng, alpha_shape, low=-1, high=1)
    model = single_op_model("PRELU", [("x", xs, "float32"), alpha], [("y", xs, "float32")])
    check(model, [rand(rng, xs, low=-3, high=3)], threads)


ACTIVATIONS = {"RELU": {}, "RELU6": {}, "RELU_N1_TO_1": {}, "RELU_0_TO_1": {}, "LOGISTIC": {},
               "TANH": {}, "LEAKY_RELU": {"alpha": 0.3}, "ELU": {}, "HARD_SWISH": {},
               "GELU": {}}


def test_activations(isa, threads, rng):
    shape = (3, 7, 11)          # 231 elements: every vector width leaves a tail
    x = rand(rng, shape, low=-12, high=12)
    x.reshape(-1)[:EXTREMES.size] = EXTREMES
    for op, opts in ACTIVATIONS.items():
        check(unary_model(op, shape, **opts), [x], threads, ACCUMULATE)
    check(unary_model("GELU", shape, approximate=True), [x], threads, ACCUMULATE)


UNARY = {"ABS": (-5, 5), "NEG": (-5, 5), "SQRT": (0, 9), "RSQRT": (0.01, 9), "EXP": (-80, 80),
         "LOG": (1e-30, 1e6), "FLOOR": (-9, 9), "CEIL": (-9, 9), "ROUND": (-9, 9),
         "SQUARE": (-9, 9)}


def test_unary(isa, threads, rng):
    shape = (5, 41)
    for op, (lo, hi) in UNARY.items():
        x = rand(rng, shape, low=lo, high=hi)
        x.reshape(-1)[:EXTREMES.size] = EXTREMES
        x.reshape(-1)[EXTREMES.size:EXTREMES.size + 8] = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5,
                                                         2.5, 3.5]    # halves: to even
        check(unary_model(op, shape), [x], threads, ACCUMULATE)


@pytest.mark.parametrize("shape,beta", [((1, 1000), 1.0), ((2, 3, 37), 0.5), ((64, 129), 1.7),
                                        ((5,), 1.0)])
def test_softmax(isa, threads, rng, shape, beta):
    check(unary_model("SOFTMAX", shape, beta=beta), [rand(rng, shape, low=-30, high=30)],
          threads, ACCUMULATE)


def reduce_model(op, shape, axes, keep_dims):
    norm = {a % len(shape) for a in axes}
    out = tuple(1 if i in norm else d for i, d in enumerate(shape) if keep_dims or i not in norm)
    return single_op_model(op, [("x", shape, "float32"), np.array(axes, np.int32)],
                           [("y", out, "float32")], keep_dims=keep_dims)


@pytest.mark.parametrize("op", ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"])
def test_reduce(isa, threads, rng, op):
    shape = (3, 5, 1, 7, 9)
    x = rand(rng, shape, low=0.5, high=1.5)
    for axes in ([1], [4], [0, 3], [1, 3], [0, 1, 2, 3, 4], [-1, 1], [2], [0, 2, 4]):
        for keep in (True, False):
            check(reduce_model(op, shape, axes, keep), [x], threads, ACCUMULATE)


def test_reduce_max_extremes(isa, threads):
    x = np.array([[-np.inf, -np.inf, -np.inf], [np.nan, 1, 2], [3, np.nan, -1]], np.float32)
    for op in ("REDUCE_MAX", "REDUCE_MIN"):
        for axes in ([0], [1]):
            check(reduce_model(op, (3, 3), axes, False), [x], threads)


@pytest.mark.parametrize("out_type", ["int32", "int64"])
@pytest.mark.parametrize("op", ["ARG_MAX", "ARG_MIN"])
def test_arg_min_max(isa, threads, rng, op, out_type):
    xs = (3, 4, 37)
    x = np.round(rand(rng, xs, low=-2, high=2))      # many ties: the first index wins
    x[0, 0, 5] = np.nan
    for axis in (0, 1, 2, -1):
        out = tuple(d for i, d in enumerate(xs) if i != axis % 3)
        model = single_op_model(op, [("x", xs, "float32"), np.array([axis], np.int32)],
                                [("y", out, out_type)], output_type=out_type)
        check(model, [x], threads)


def test_large_threaded(isa):
    """Sizes above the threading grain, exact against NumPy (one rounding per element)."""
    rng = np.random.default_rng(3)
    a, b = rand(rng, (1, 56, 56, 144)), rand(rng, (144,))
    model = binary_model("ADD", a.shape, b.shape, fused_activation_function="RELU6")
    got = onert_py.Session(model, backends="acl_neon", config={"num_threads": 2}).run([a, b])
    np.testing.assert_array_equal(got[0], np.clip(a + b, 0, 6))
    model = unary_model("RELU", a.shape)
    got = onert_py.Session(model, backends="acl_neon", config={"num_threads": 2}).run([a])
    np.testing.assert_array_equal(got[0], np.maximum(a, 0))


def test_refused_forms_fall_back():
    """int32 DIV and computed reduce axes are not acl_neon's: cpu runs them."""
    model = binary_model("DIV", (3, 4), (4,), "int32")
    with pytest.raises(onert_py.CompileError, match="float32"):
        onert_py.Session(model, backends="acl_neon")
    a, b = np.arange(12, dtype=np.int32).reshape(3, 4), np.arange(1, 5, dtype=np.int32)
    got = onert_py.Session(model, backends=["acl_neon", "cpu"]).run([a, b])
    np.testing.assert_array_equal(got[0], a // b)
