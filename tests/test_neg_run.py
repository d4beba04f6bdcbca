"""Negative and edge-case tests of the run phase: wrong inputs are InputErrors naming the
input, what was expected and what was given; the user's arrays are never written; outputs
are fresh; odd but valid arrays (read-only, strided, unaligned) and NaN/Inf just work."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from onert_py import InputError, OnertPyError, Session
from onert_py.model_builder import ModelBuilder
from builders.small_models import check_relu_add, relu_add_model
from oracle import tflite_run


@pytest.fixture(scope="module")
def sess() -> Session:
    return Session(relu_add_model(), backends="cpu")


@pytest.fixture
def xs(rng) -> list[np.ndarray]:
    return [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]


def input_error(sess: Session, inputs, *words: str) -> str:
    with pytest.raises(InputError) as info:
        sess.run(inputs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, OnertPyError)
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


# ---------------------------------------------------------------- wrong inputs
@pytest.mark.parametrize("n", [0, 1, 3])
def test_wrong_input_count(sess, xs, n):
    input_error(sess, (xs * 2)[:n], "2 input(s)", "['x', 'x2']", f"got {n}")


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, np.bool_])
def test_wrong_dtype(sess, xs, dtype):
    input_error(sess, [xs[0], xs[1].astype(dtype)], "input 1", "'x2'",
                "expected dtype float32", f"got {np.dtype(dtype)}")


@pytest.mark.parametrize("shape", [(3, 2), (6,), (1, 2, 3), (2, 4)])
def test_wrong_shape(sess, xs, shape):
    bad = np.zeros(shape, np.float32)
    input_error(sess, [bad, xs[1]], "input 0", "'x'", "expected shape (2, 3)",
                f"got {shape}", "set_input_shape")


def test_unknown_input_name(sess, xs):
    input_error(sess, {"x": xs[0], "x2": xs[1], "nope": xs[0]}, "unknown ['nope']",
                "['x', 'x2']")


def test_missing_input_name(sess, xs):
    input_error(sess, {"x": xs[0]}, "missing ['x2']", "['x', 'x2']")


@pytest.mark.parametrize("inputs", ["x", 5, None, {1, 2}])
def test_inputs_of_the_wrong_kind(sess, inputs):
    input_error(sess, inputs, "list of arrays", "dict", type(inputs).__name__)


def test_non_array_input(sess, xs):
    input_error(sess, [xs[0], None], "input 1", "expected dtype float32", "got object")
    input_error(sess, [xs[0], [[1, 2, 3], [4, 5, 6]]], "input 1", "got int64")


def test_by_name_and_nested_lists_work(sess, xs):
    check_relu_add(sess.run({"x2": xs[1], "x": xs[0]}), xs)
    check_relu_add(sess.run([xs[0].tolist(), xs[1]]), xs)     # a list of floats converts to float32


def test_error_leaves_session_usable(sess, xs):
    with pytest.raises(InputError):
        sess.run([xs[0]])
    check_relu_add(sess.run(xs), xs)


# ---------------------------------------------------------------- the user's arrays
def test_inputs_not_modified(sess, xs):
    copies = [x.copy() for x in xs]
    for _ in range(2):
        sess.run(xs)
        for x, c in zip(xs, copies):
            np.testing.assert_array_equal(x, c)


def test_outputs_are_fresh(sess, xs):
    first = sess.run(xs)
    second = sess.run(xs)
    for a, b in zip(first, second):
        assert a is not b and not np.shares_memory(a, b)
        for x in xs:
            assert not np.shares_memory(a, x)
        assert a.flags.writeable and a.flags.owndata
    first[0][...] = 1e6                      # the caller may scribble on what it got back
    third = sess.run(xs)
    check_relu_add(third, xs)
    np.testing.assert_array_equal(second[0], third[0])


def test_passthrough_output_is_a_copy():
    """A graph output that is a graph input is still a fresh array."""
    b = ModelBuilder()
    x = b.add_input("x", (3,))
    b.add_output(x)
    a = np.arange(3, dtype=np.float32)
    out = Session(b.build(), backends="cpu").run([a])[0]
    np.testing.assert_array_equal(out, a)
    assert not np.shares_memory(out, a)


def test_same_tensor_twice_in_outputs():
    b = ModelBuilder()
    x = b.add_input("x", (3,))
    y = b.add_tensor("y", (3,))
    b.add_op("RELU", [x], [y])
    b.add_output(y)
    b.add_output(y)
    o1, o2 = Session(b.build(), backends="cpu").run([np.array([-1, 0, 2], np.float32)])
    np.testing.assert_array_equal(o1, [0, 0, 2])
    np.testing.assert_array_equal(o2, [0, 0, 2])
    assert not np.shares_memory(o1, o2)


def _unaligned(x: np.ndarray) -> np.ndarray:
    raw = np.zeros(x.nbytes + 1, np.uint8)
    view = raw[1:].view(x.dtype).reshape(x.shape)
    view[...] = x
    return view


@pytest.mark.parametrize("kind", ["read-only", "step slice", "reversed", "fortran",
                                  "broadcast", "unaligned"])
def test_unusual_arrays(sess, xs, kind):
    x = xs[0]
    if kind == "read-only":
        odd = x.copy()
        odd.setflags(write=False)
    elif kind == "step slice":
        big = np.zeros((4, 6), np.float32)
        big[::2, ::2] = x
        odd = big[::2, ::2]
    elif kind == "reversed":
        odd = x[::-1, ::-1].copy()[::-1, ::-1]
    elif kind == "fortran":
        odd = np.asfortranarray(x)
    elif kind == "broadcast":
        x = np.broadcast_to(x[0], (2, 3))
        odd = x
    else:
        odd = _unaligned(x)
    if kind not in ("read-only", "fortran", "unaligned"):
        assert not odd.flags.c_contiguous
    np.testing.assert_array_equal(odd, x)
    before = np.array(odd, copy=True)
    got = sess.run([odd, xs[1]])
    want = sess.run([np.ascontiguousarray(x), xs[1]])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    check_relu_add(got, [x, xs[1]])
    np.testing.assert_array_equal(odd, before)


# ---------------------------------------------------------------- NaN and Inf
def arith_model() -> bytes:
    """ADD, SUB, DIV, MUL of two inputs: NaN and Inf must flow through all of them."""
    b = ModelBuilder()
    a, c = b.add_input("a", (8,)), b.add_input("b", (8,))
    for op in ("ADD", "SUB", "DIV", "MUL"):
        y = b.add_tensor(op.lower(), (8,))
        b.add_op(op, [a, c], [y])
        b.add_output(y)
    return b.build()


def saturate(x: np.ndarray) -> np.ndarray:
    """TFLite's float ADD/SUB/MUL/DIV clamp to [lowest, max] even without an activation, so
    +-Inf comes out as +-FLT_MAX there: compare modulo that saturation (NaN stays NaN)."""
    f = np.finfo(np.float32)
    return np.clip(x, f.min, f.max)


def test_nan_inf_propagate():
    inf, nan = np.inf, np.nan
    a = np.array([nan, inf, -inf, inf, 0, 1, nan, 3], np.float32)
    c = np.array([1, 1, 1, inf, 0, 0, nan, -inf], np.float32)
    model = arith_model()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no RuntimeWarning leaks to the caller either
        got = Session(model, backends="cpu").run([a, c])
    with np.errstate(all="ignore"):
        want = [a + c, a - c, a / c, a * c]
    oracle = tflite_run(model, [a, c])
    for g, w, o in zip(got, want, oracle, strict=True):
        assert np.isnan(g).sum() >= 2           # the NaN inputs (and inf - inf, 0 / 0, ...)
        np.testing.assert_array_equal(saturate(g), saturate(w))   # NaN positions match exactly
        np.testing.assert_array_equal(saturate(g), o)


def test_nan_through_relu_and_softmax():
    b = ModelBuilder()
    x = b.add_input("x", (1, 4))
    s = b.add_tensor("s", (1, 4))
    b.add_op("SOFTMAX", [x], [s], beta=1.0)
    b.add_output(s)
    x_arr = np.array([[0, 1, np.nan, 2]], np.float32)
    out = Session(b.build(), backends="cpu").run([x_arr])[0]
    assert np.isnan(out).all()
    inf_arr = np.array([[0, 1, np.inf, 2]], np.float32)
    out = Session(b.build(), backends="cpu").run([inf_arr])[0]
    assert not np.isfinite(out).all()       # inf - inf inside softmax: NaN, never an exception
