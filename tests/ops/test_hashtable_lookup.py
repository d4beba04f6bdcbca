"""HASHTABLE_LOOKUP against the TFLite interpreter on every backend: sorted keys with hits and
misses, extreme int32 keys (the comparator's wrapping difference), unsorted keys (the bisection's
path decides), value rows of several dtypes and ranks, and the configure-time refusals."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.backends.cpu.ops.hashtable_lookup import lookup_indices
from onert_py.model_builder import ModelBuilder
from op_harness import check_op

INT_MIN, INT_MAX = -2**31, 2**31 - 1


def model(keys: np.ndarray, values: np.ndarray, n: int, const_values: bool = True,
          out_dtype: str | None = None, hits_dtype: str = "uint8") -> bytes:
    b = ModelBuilder()
    look = b.add_input("lookup", (n,), "int32")
    k = b.add_const("keys", keys.astype(np.int32))
    dt = str(values.dtype)
    v = b.add_const("values", values) if const_values else b.add_input("values", values.shape,
                                                                        dt)
    y = b.add_tensor("y", (n, *values.shape[1:]), out_dtype or dt)
    hits = b.add_tensor("hits", (n,), hits_dtype)
    b.add_op("HASHTABLE_LOOKUP", [look, k, v], [y, hits])
    b.add_output(y)
    b.add_output(hits)
    return b.build()


CASES = {
    "float_rows": (np.array([-5, 0, 2, 7, 11, 40, 41]), (7, 3), "float32",
                   [2, 3, 41, -5, 100, 0, 2, 1, -6]),
    "int32_matrix_rows": (np.arange(0, 60, 3), (20, 2, 3), "int32", [57, 3, 4, 0, 58, 30]),
    "uint8_scalars": (np.array([1, 5, 9]), (3,), "uint8", [9, 1, 5, 2]),
    "extreme_keys": (np.array([INT_MIN, -1, 0, 1, INT_MAX]), (5, 4), "float32",
                     [INT_MIN, INT_MAX, 0, -1, 1, INT_MIN + 1, INT_MAX - 1]),
    "unsorted_keys": (np.array([5, 1, 9, 2, 7, 3, 8]), (7, 2), "float32",
                      [5, 1, 9, 2, 7, 3, 8, 4]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hashtable_lookup(case, backend, rng):
    keys, vshape, dt, look = CASES[case]
    values = (rng.uniform(-50, 50, vshape) if dt == "float32"
              else rng.integers(0, 200, vshape)).astype(dt)
    look = np.array(look, np.int32)
    check_op(model(keys, values, look.size), [look], backend, rtol=0, atol=0)


def test_hashtable_lookup_values_input(backend, rng):
    keys = np.array([2, 4, 6, 8, 10])
    values = rng.uniform(-1, 1, (5, 6)).astype(np.float32)
    look = np.array([10, 3, 2, 8], np.int32)
    check_op(model(keys, values, 4, const_values=False), [look, values], backend, rtol=0, atol=0)


def test_lookup_indices_follow_the_bisection():
    keys = np.array([5, 1, 9, 2], np.int32)
    got = lookup_indices(np.array([9, 1, 5, 2, 4], np.int32), keys)
    np.testing.assert_array_equal(got, [2, 1, -1, -1, -1])


@pytest.mark.parametrize("bad,words", [
    ({"out_dtype": "int32"}, "output has dtype int32"),
    ({"hits_dtype": "int32"}, "hits must be uint8"),
])
def test_hashtable_lookup_refusals(bad, words):
    m = model(np.array([1, 2]), np.zeros((2, 3), np.float32), 2, **bad)
    with pytest.raises(onert_py.CompileError, match=words):
        onert_py.Session(m, backends="cpu")


def test_hashtable_lookup_resized_lookups(backend, rng):
    """More lookups than the model declares: the session resizes (shape rule: N rows, N hits)."""
    keys = np.array([2, 4, 6, 8, 10])
    values = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    look = np.array([10, 3, 2, 8, 4, 4, 1], np.int32)
    check_op(model(keys, values, 4), [look], backend, rtol=0, atol=0)


def test_hashtable_lookup_run_time_values_shape():
    """Values whose shape is known only at run time (a RESHAPE by an input): rows that match
    the keys are looked up; other rows are an ExecutionError naming the op, not a crash."""
    b = ModelBuilder()
    look = b.add_input("lookup", (3,), "int32")
    flat = b.add_input("flat", (10,), "float32")
    shape = b.add_input("shape", (2,), "int32")
    v = b.add_tensor("values", (5, 2), "float32")
    b.add_op("RESHAPE", [flat, shape], [v])
    y = b.add_tensor("y", (3, 2), "float32")
    hits = b.add_tensor("hits", (3,), "uint8")
    b.add_op("HASHTABLE_LOOKUP", [look, b.add_const("keys", np.array([1, 3, 5, 7, 9], np.int32)),
                                  v], [y, hits])
    b.add_output(y)
    b.add_output(hits)
    x = np.arange(10, dtype=np.float32)
    with onert_py.Session(b.build(), backends="cpu") as s:
        got = s.run([np.array([9, 2, 1], np.int32), x, np.array([5, 2], np.int32)])
        np.testing.assert_array_equal(got[0], [[8, 9], [0, 0], [0, 1]])
        np.testing.assert_array_equal(got[1], [1, 0, 1])
        with pytest.raises(onert_py.ExecutionError, match="HASHTABLE_LOOKUP.*one row per key"):
            s.run([np.array([9, 2, 1], np.int32), x, np.array([2, 5], np.int32)])
