"""RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL. Values come from another generator
than TFLite's, so they are not compared: shapes and dtypes are (with the interpreter), and
ranges, moments, determinism for a fixed seed and the stateful sequence (two runs of one
session differ, as two invokes of one interpreter do) are checked here."""
from __future__ import annotations

import numpy as np
import pytest

from builders.single_op import build
from op_harness import open_session, run_onert
from oracle import tflite_run

I32, I64 = np.int32, np.int64
RANDOM = ["RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL"]


def runs(model: bytes, inputs: list, n: int, backend: str) -> list[np.ndarray]:
    """n runs of one session."""
    with open_session(model, backend) as sess:
        return [np.array(sess.run(inputs)[0], copy=True) for _ in range(n)]


def same_as_interpreter(model: bytes, inputs: list, backend: str) -> np.ndarray:
    got = run_onert(model, inputs, backend, warmup=False)[0]
    want = tflite_run(model, inputs)[0]
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{got.shape} {got.dtype}, the interpreter gives {want.shape} {want.dtype}"
    return got


@pytest.mark.parametrize("op", RANDOM)
def test_random_shape_and_dtype(backend, op):
    """(The interpreter takes only an int32 shape.)"""
    model = build(op, [np.array([3, 4, 5], I32)], [("y", (3, 4, 5), "float32")],
                  seed=7, seed2=11)
    same_as_interpreter(model, [], backend)


@pytest.mark.parametrize("op", RANDOM)
def test_random_int64_shape(backend, op):
    model = build(op, [np.array([2, 7], I64)], [("y", (2, 7), "float32")], seed=1)
    got = run_onert(model, [], backend, warmup=False)[0]
    assert got.shape == (2, 7) and got.dtype == np.float32


@pytest.mark.parametrize("op", RANDOM)
def test_random_shape_input(backend, op):
    """The output shape is a graph input: known only at run time."""
    model = build(op, [("s", (2,), "int32")], [("y", (None, None), "float32")], seed=1, seed2=2)
    for shape in ([2, 3], [5, 1]):
        got = same_as_interpreter(model, [np.array(shape, I32)], backend)
        assert got.shape == tuple(shape)


@pytest.mark.parametrize("op", RANDOM)
def test_random_distribution(backend, op):
    model = build(op, [np.array([200, 100], I32)], [("y", (200, 100), "float32")], seed=5)
    y = runs(model, [], 1, backend)[0].astype(np.float64)
    if op == "RANDOM_UNIFORM":
        assert y.min() >= 0.0 and y.max() < 1.0
        assert abs(y.mean() - 0.5) < 0.01 and abs(y.var() - 1 / 12) < 0.005
        assert abs(np.mean(y < 0.25) - 0.25) < 0.015
    else:
        assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
        assert abs(np.mean(np.abs(y) < 1.0) - 0.6827) < 0.015


@pytest.mark.parametrize("seeds", [(3, 7), (0, 9), (-4, 0)])
@pytest.mark.parametrize("op", RANDOM)
def test_random_seeded_is_deterministic_and_stateful(backend, op, seeds):
    """Fixed seeds: every session gives the same sequence; the runs of one session differ
    (the interpreter does the same, see test_interpreter_random_is_stateful)."""
    model = build(op, [np.array([4, 6], I32)], [("y", (4, 6), "float32")],
                  seed=seeds[0], seed2=seeds[1])
    a, b = runs(model, [], 2, backend), runs(model, [], 2, backend)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])
    other = build(op, [np.array([4, 6], I32)], [("y", (4, 6), "float32")],
                  seed=seeds[0] + 1, seed2=seeds[1])
    assert not np.array_equal(runs(other, [], 1, backend)[0], a[0])


@pytest.mark.parametrize("op", RANDOM)
def test_random_unseeded_differs_between_sessions(backend, op):
    model = build(op, [np.array([4, 6], I32)], [("y", (4, 6), "float32")])
    assert not np.array_equal(runs(model, [], 1, backend)[0], runs(model, [], 1, backend)[0])


@pytest.mark.parametrize("op", RANDOM)
def test_interpreter_random_is_stateful(op):
    """The behaviour the kernels copy: fixed seeds repeat across interpreters, and two
    invokes of one interpreter differ."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    model = build(op, [np.array([4, 6], I32)], [("y", (4, 6), "float32")], seed=3, seed2=7)

    def two_invokes():
        it = Interpreter(model_content=model, experimental_op_resolver_type=(
            OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
        it.allocate_tensors()
        out = it.get_output_details()[0]["index"]
        vals = []
        for _ in range(2):
            it.invoke()
            vals.append(np.array(it.get_tensor(out), copy=True))
        return vals

    a, b = two_invokes(), two_invokes()
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], a[1])


# ---- MULTINOMIAL ---------------------------------------------------------------------------------
@pytest.mark.parametrize("out_dtype", ["int32", "int64"])
def test_multinomial_shape_and_dtype(backend, rng, out_dtype):
    model = build("MULTINOMIAL", [("l", (3, 5), "float32"), np.array(7, I32)],
                  [("y", (3, 7), out_dtype)], seed=2, seed2=3)
    got = same_as_interpreter(model, [rng.normal(size=(3, 5)).astype(np.float32)], backend)
    assert got.min() >= 0 and got.max() < 5


def test_multinomial_num_samples_input(backend, rng):
    model = build("MULTINOMIAL", [("l", (2, 4), "float32"), ("n", (), "int32")],
                  [("y", (2, None), "int64")], seed=2, seed2=3)
    logits = rng.normal(size=(2, 4)).astype(np.float32)
    for n in (3, 9):
        assert same_as_interpreter(model, [logits, np.array(n, I32)], backend).shape == (2, n)


def test_multinomial_frequencies(backend):
    """Sample frequencies follow softmax(logits); a class with -inf logit never appears."""
    p = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.0, 0.5]])
    with np.errstate(divide="ignore"):
        logits = (np.log(p) + 1.5).astype(np.float32)
    model = build("MULTINOMIAL", [("l", (2, 4), "float32"), np.array(20000, I32)],
                  [("y", (2, 20000), "int64")], seed=11, seed2=1)
    y = runs(model, [logits], 1, backend)[0]
    for row, probs in zip(y, p):
        freq = np.bincount(row, minlength=4) / row.size
        np.testing.assert_allclose(freq, probs, atol=0.015)
        assert np.all(freq[probs == 0] == 0)


def test_multinomial_seeded_is_deterministic_and_stateful(backend, rng):
    model = build("MULTINOMIAL", [("l", (2, 6), "float32"), np.array(50, I32)],
                  [("y", (2, 50), "int32")], seed=4, seed2=4)
    logits = np.zeros((2, 6), np.float32)
    a, b = runs(model, [logits], 2, backend), runs(model, [logits], 2, backend)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])
