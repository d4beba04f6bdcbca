"""Hardening of Session inputs and of close(), beyond tests/test_neg_run.py: arrays that alias
each other or an earlier output, read-only inputs through control flow on every executor,
Python values and their conversion rule, NaN/Inf per op against the interpreter, and what a
closed (or never compiled) session still holds. Rules: docs/robustness.md."""
from __future__ import annotations

import os

import numpy as np
import pytest

from onert_py import InputError, OnertPyError, Session
from onert_py.core.compiler import manager
from onert_py.model_builder import single_op_model
from onert_py.errors import SessionClosedError
from builders.cf_models import if_model, nested_model, while_model, while_until_model
from builders.small_models import check_relu_add, relu_add_model, small_cnn
from builders.small_models import small_cnn_inputs as cnn_inputs
from op_harness import session_internals
from oracle import tflite_run

EXECUTORS = ["Linear", "Dataflow", "Parallel"]


@pytest.fixture(scope="module")
def sess() -> Session:
    return Session(relu_add_model(), backends="cpu")


# ---------------------------------------------------------------- aliasing
def test_same_array_object_for_two_inputs(sess, rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    before = x.copy()
    check_relu_add(sess.run([x, x]), [before, before])
    np.testing.assert_array_equal(x, before)


def test_inputs_overlapping_in_one_buffer(sess):
    buf = np.arange(9, dtype=np.float32) - 4
    a, b = buf[:6].reshape(2, 3), buf[3:].reshape(2, 3)     # share buf[3:6]
    before = buf.copy()
    check_relu_add(sess.run([a, b]), [before[:6].reshape(2, 3), before[3:].reshape(2, 3)])
    np.testing.assert_array_equal(buf, before)


def test_input_that_is_a_previous_output(sess, rng):
    xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]
    first = sess.run(xs)
    kept = [o.copy() for o in first]
    second = sess.run([first[1], first[1][::-1]])        # z and a reversed view of z
    check_relu_add(second, [kept[1], kept[1][::-1]])
    for o, k in zip(first, kept):                       # the earlier results are untouched
        np.testing.assert_array_equal(o, k)
    for s in second:
        assert not any(np.shares_memory(s, o) for o in first)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_later_runs_never_change_returned_arrays(executor):
    with Session(small_cnn(), backends="cpu", config={"executor": executor}) as s:
        first = s.run(cnn_inputs())
        kept = [o.copy() for o in first]
        other = [x * 3 for x in cnn_inputs()]
        for _ in range(3):
            s.run(other)
        for o, k in zip(first, kept):
            np.testing.assert_array_equal(o, k)


CF_CASES = {
    "while_until": (while_until_model, lambda: [np.ones((2, 2), np.float32)]),
    "nested": (nested_model, lambda: [np.int32(3), np.ones((2, 2), np.float32)]),
    "while": (while_model, lambda: [np.int32(3), np.ones((1, 4), np.float32)]),
    "if": (if_model, lambda: [np.array(False), np.ones((2, 3), np.float32),
                              np.full((2, 3), 2, np.float32)]),
}


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", sorted(CF_CASES))
def test_read_only_inputs_through_control_flow(case, executor):
    """Inputs bound straight into If/While children are still only read."""
    make, args = CF_CASES[case]
    model, xs = make(), [np.array(x) for x in args()]
    for x in xs:
        x.setflags(write=False)
    before = [x.copy() for x in xs]
    want = tflite_run(model, before)
    with Session(model, backends="cpu", config={"executor": executor}) as s:
        first = s.run(xs)
        second = s.run(xs)
    for got in (first, second):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    for x, b in zip(xs, before):
        np.testing.assert_array_equal(x, b)
    for g in first:
        assert not any(np.shares_memory(g, x) for x in xs)
        assert not any(np.shares_memory(g, h) for h in second)


# ---------------------------------------------------------------- Python values
def test_python_scalars_and_bools_convert():
    got = Session(while_model(), backends="cpu").run([3, [[1.0, 2.0, 3.0, 4.0]]])
    want = tflite_run(while_model(), [np.int32(3), np.array([[1, 2, 3, 4]], np.float32)])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert g.dtype == w.dtype
    cond_true = Session(if_model(), backends="cpu").run([True, np.ones((2, 3), np.float32),
                                                         np.ones((2, 3), np.float32)])
    np.testing.assert_array_equal(cond_true[0], np.full((2, 3), 2, np.float32))


@pytest.mark.parametrize("value, words", [
    (2 ** 40, ["do not fit int32", "1099511627776"]),
    ([[1.0, 2.0], [3.0]], ["cannot be converted", "inhomogeneous"]),
    ("three", ["expected dtype int32", "<U5"]),
    (3.0, ["expected dtype int32", "float64"]),          # a float is not silently truncated
    (None, ["expected dtype int32", "object"]),
])
def test_python_values_refused_clearly(value, words):
    s = Session(while_model(), backends="cpu")
    with pytest.raises(InputError) as info:
        s.run([value, np.ones((1, 4), np.float32)])
    msg = str(info.value)
    assert "input 0 ('n')" in msg
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


def test_float_list_beyond_float32_refused(sess):
    with pytest.raises(InputError, match="beyond the range of float32"):
        sess.run([[[1e39, 0, 0], [0, 0, 0]], np.zeros((2, 3), np.float32)])


def test_masked_array_refused(sess):
    m = np.ma.masked_array(np.zeros((2, 3), np.float32), mask=[[1, 0, 0], [0, 0, 0]])
    with pytest.raises(InputError, match="masked arrays are not accepted"):
        sess.run([m, np.zeros((2, 3), np.float32)])


def test_big_endian_input_is_converted_and_left_alone(sess, rng):
    x = rng.standard_normal((2, 3)).astype(">f4")
    x.setflags(write=False)
    before = x.copy()
    x2 = rng.standard_normal((2, 3)).astype(np.float32)
    check_relu_add(sess.run([x, x2]), [x.astype(np.float32), x2])
    np.testing.assert_array_equal(x, before)
    assert x.dtype == np.dtype(">f4")


# ---------------------------------------------------------------- NaN and Inf per op
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3e38], np.float32)
SPECIAL2 = np.array([1.0, np.nan, np.inf, np.inf, -np.inf, 0.0, np.nan, 3e38], np.float32)
UNARY = ["RELU", "RELU6", "RELU_N1_TO_1", "ABS", "NEG", "SQRT", "RSQRT", "LOG", "EXP",
         "FLOOR", "CEIL", "ROUND", "SQUARE", "ELU", "SIN", "TANH", "LOGISTIC", "LEAKY_RELU"]
BINARY = ["POW", "SQUARED_DIFFERENCE", "LESS", "EQUAL", "NOT_EQUAL", "GREATER_EQUAL"]


def _same_special(got: np.ndarray, want: np.ndarray) -> None:
    """NaN where the interpreter has NaN, the same infinities, finite values within 1 ulp-ish
    (transcendental ops differ in the last bit between NumPy and TFLite)."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, equal_nan=True)


@pytest.mark.parametrize("op", UNARY)
def test_nan_inf_unary_like_the_interpreter(op):
    model = single_op_model(op, [("x", (8,), "float32")], [("y", (8,), "float32")])
    got = Session(model, backends="cpu").run([SPECIAL])[0]
    _same_special(got, tflite_run(model, [SPECIAL])[0])


@pytest.mark.parametrize("op", BINARY)
def test_nan_inf_binary_like_the_interpreter(op):
    out = "bool" if op in ("LESS", "EQUAL", "NOT_EQUAL", "GREATER_EQUAL") else "float32"
    model = single_op_model(op, [("a", (8,), "float32"), ("b", (8,), "float32")],
                            [("y", (8,), out)])
    got = Session(model, backends="cpu").run([SPECIAL, SPECIAL2])[0]
    want = tflite_run(model, [SPECIAL, SPECIAL2])[0]
    if out == "bool":
        np.testing.assert_array_equal(got, want)
    else:
        _same_special(got, want)


def test_nan_in_an_image_reaches_the_same_outputs():
    xs = cnn_inputs()
    xs[0][0, 2, 3, 1] = np.nan
    xs[0][0, 5, 5, 0] = np.inf
    got = Session(small_cnn(), backends="cpu").run(xs)
    want = tflite_run(small_cnn(), xs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        assert np.isnan(g).any()


# ---------------------------------------------------------------- close semantics
def test_closed_session_every_method_says_closed():
    s = Session(small_cnn(), backends="cpu")
    infos = (s.inputs, s.outputs)
    s.close()
    s.close()                                   # idempotent
    calls = [lambda: s.run(cnn_inputs()), lambda: s.set_input_shape(0, (2, 8, 8, 3)),
             s.explain, s.reset_state, lambda: s.set_input_type(0, np.float32),
             lambda: s.set_output_type(0, np.float32), lambda: s.backends]
    for call in calls:
        with pytest.raises(SessionClosedError, match="closed"):
            call()
    assert issubclass(SessionClosedError, OnertPyError)
    assert (s.inputs, s.outputs) == infos and s.closed and "closed" in repr(s)


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_close_unmaps_the_model_file_without_gc(tmp_path):
    path = tmp_path / "m.tflite"
    path.write_bytes(small_cnn())
    Session(str(path), backends="cpu").close()      # warm-up
    before = _fds()
    kept = []
    for _ in range(5):
        s = Session(str(path), backends="cpu")
        s.run(cnn_inputs())
        s.close()
        kept.append(s)                  # closed sessions still referenced hold no mapping
    assert _fds() == before
    assert all(session_internals(s) == (None, None, None) for s in kept)


def test_failed_compile_releases_backends_and_the_file(tmp_path):
    path = tmp_path / "m.tflite"
    path.write_bytes(small_cnn())
    users = {b: manager.users(b) for b in ("builtin", "cpu")}
    before = _fds()
    with pytest.raises(OnertPyError):
        Session(str(path), backends="cpu", config={"max_tensor_bytes": 64})
    assert {b: manager.users(b) for b in ("builtin", "cpu")} == users
    assert _fds() == before


def test_close_releases_lazily_compiled_children():
    s = Session(nested_model(), backends="cpu")
    s.run([np.int32(3), np.ones((2, 2), np.float32)])
    children = list(session_internals(s).compiler.children.values())
    assert len(children) >= 4
    s.close()
    assert all(c.executor is None and c.contexts == {} for c in children)
