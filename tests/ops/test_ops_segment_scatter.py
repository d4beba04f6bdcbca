"""SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_SUM/MAX/MIN/PROD, SPARSE_TO_DENSE,
DYNAMIC_UPDATE_SLICE and EMBEDDING_LOOKUP (float tables) against the TFLite interpreter.
Index inputs are constants or graph inputs (then read every run; a shape that follows index
values is known only at run time)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.single_op import MOVE, Q, build, data
from op_harness import ACCUMULATE, check_op, check_runs, open_session, rand, run_onert

I32, I64 = np.int32, np.int64


# ---- SCATTER_ND ----------------------------------------------------------------------------------
SCATTERS = {  # indices, updates shape, output shape
    "elements": ([[1], [3], [0]], (3,), (5,)),
    "rows": ([[2], [0]], (2, 4), (3, 4)),
    "points": ([[0, 1], [2, 3], [1, 0]], (3,), (3, 4)),
    "repeated": ([[1], [1], [2], [1]], (4, 2), (3, 2)),
    "batched": ([[[0, 0], [1, 2]], [[1, 1], [0, 2]]], (2, 2, 5), (2, 3, 5)),
}


@pytest.mark.parametrize("case", list(SCATTERS))
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "int8", "uint8", "bool"])
def test_scatter_nd(backend, rng, dtype, case):
    idx, us, out = SCATTERS[case]
    model = build("SCATTER_ND", [np.array(idx, I32), ("u", us, dtype), np.array(out, I32)],
                  [("y", out, dtype)])
    check_op(model, [data(rng, us, dtype)], backend)


def test_scatter_nd_indices_and_shape_inputs(backend, rng):
    model = build("SCATTER_ND", [("i", (2, 1), "int32"), ("u", (2, 3), "float32"),
                                 ("s", (2,), "int32")], [("y", (None, None), "float32")])
    u = rand(rng, (2, 3))
    check_runs(model, [[np.array([[1], [0]], I32), u, np.array([4, 3], I32)],
                       [np.array([[2], [2]], I32), u, np.array([3, 3], I32)]], backend)


def test_scatter_nd_index_out_of_range_fails(backend, rng):
    model = build("SCATTER_ND", [("i", (1, 1), "int32"), ("u", (1,), "float32"),
                                 np.array([3], I32)], [("y", (3,), "float32")])
    with open_session(model, backend) as sess:
        with pytest.raises(onert_py.ExecutionError, match="out of range"):
            sess.run([np.array([[3]], I32), rand(rng, (1,))])


# ---- SEGMENT_SUM, UNSORTED_SEGMENT_* -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("ids", [[0, 0, 1, 2, 2], [0, 1, 2, 3, 4], [0, 0, 0, 0, 0]])
def test_segment_sum(backend, rng, dtype, ids):
    """(The interpreter only takes ids 0, 1, 2, ... without gaps.)"""
    out = (max(ids) + 1, 3)
    model = build("SEGMENT_SUM", [("x", (5, 3), dtype), np.array(ids, I32)], [("y", out, dtype)])
    check_op(model, [data(rng, (5, 3), dtype)], backend, **ACCUMULATE)


def test_segment_sum_ids_input(backend, rng):
    """The output's first dimension follows the largest id: known only at run time."""
    model = build("SEGMENT_SUM", [("x", (4, 2), "float32"), ("i", (4,), "int32")],
                  [("y", (None, 2), "float32")])
    x = rand(rng, (4, 2))
    check_runs(model, [[x, np.array([0, 0, 1, 1], I32)], [x, np.array([0, 1, 2, 3], I32)]],
               backend)


def test_segment_sum_with_gaps(backend, rng):
    """Ids that skip segments (the interpreter refuses them; TensorFlow's definition leaves the
    skipped segments zero)."""
    model = build("SEGMENT_SUM", [("x", (4, 2), "float32"), np.array([1, 1, 3, 3], I32)],
                  [("y", (4, 2), "float32")])
    x = rand(rng, (4, 2))
    want = np.stack([np.zeros(2), x[0] + x[1], np.zeros(2), x[2] + x[3]]).astype(np.float32)
    np.testing.assert_allclose(run_onert(model, [x], backend)[0], want, rtol=1e-6)


def test_segment_sum_unsorted_fails(backend, rng):
    model = build("SEGMENT_SUM", [("x", (3, 2), "float32"), ("i", (3,), "int32")],
                  [("y", (None, 2), "float32")])
    with open_session(model, backend) as sess:
        with pytest.raises(onert_py.ExecutionError, match="sorted"):
            sess.run([rand(rng, (3, 2)), np.array([1, 0, 1], I32)])


UNSORTED = ["UNSORTED_SEGMENT_SUM", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_MIN",
            "UNSORTED_SEGMENT_PROD"]


@pytest.mark.parametrize("ids", [[3, 0, 3, 1, 0, 3], [[0, 2, 2], [1, 0, 0]]])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("op", UNSORTED)
def test_unsorted_segment(backend, rng, op, dtype, ids):
    """Segment 2 or 3 of 5 segments stays empty in some cases: it holds the identity."""
    ids = np.array(ids, I32)
    xs = (6, 2) if ids.ndim == 1 else (2, 3, 2)
    model = build(op, [("x", xs, dtype), ids, np.array([5], I32)], [("y", (5, 2), dtype)])
    x = data(rng, xs, dtype) if op != "UNSORTED_SEGMENT_PROD" or dtype == "float32" else \
        rng.integers(-5, 6, xs).astype(dtype)
    check_op(model, [x], backend, **ACCUMULATE)


@pytest.mark.parametrize("op", UNSORTED)
def test_unsorted_segment_inputs(backend, rng, op):
    model = build(op, [("x", (4, 3), "float32"), ("i", (4,), "int32"), ("n", (1,), "int32")],
                  [("y", (None, 3), "float32")])
    x = rand(rng, (4, 3))
    check_runs(model, [[x, np.array([1, 0, 1, 0], I32), np.array([2], I32)],
                       [x, np.array([3, 3, 0, 2], I32), np.array([4], I32)]], backend,
               **ACCUMULATE)


# ---- SPARSE_TO_DENSE -----------------------------------------------------------------------------
SPARSE = {  # indices, output shape, scalar value
    "vector": ([1, 4, 2], [6], False),
    "matrix": ([[0, 1], [2, 3], [1, 0]], [3, 4], False),
    "matrix_scalar_value": ([[0, 0], [1, 2]], [2, 3], True),
    "rank3": ([[0, 1, 2], [1, 0, 0]], [2, 2, 3], False),
}


@pytest.mark.parametrize("index_dtype", [I32, I64])
@pytest.mark.parametrize("case", list(SPARSE))
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "int8", "uint8"])
def test_sparse_to_dense(backend, rng, dtype, case, index_dtype):
    idx, shape, scalar = SPARSE[case]
    idx = np.array(idx, index_dtype)
    vs = () if scalar else (idx.shape[0],)
    model = build("SPARSE_TO_DENSE", [idx, np.array(shape, index_dtype), ("v", vs, dtype),
                                      ("d", (), dtype)], [("y", tuple(shape), dtype)],
                  validate_indices=False)
    check_op(model, [data(rng, vs, dtype), data(rng, (), dtype)], backend)


def test_sparse_to_dense_shape_input(backend, rng):
    model = build("SPARSE_TO_DENSE", [("i", (2, 2), "int32"), ("s", (2,), "int32"),
                                      ("v", (2,), "float32"), np.array(0.5, np.float32)],
                  [("y", (None, None), "float32")])
    v = rand(rng, (2,))
    check_runs(model, [[np.array([[0, 1], [2, 0]], I32), np.array([3, 2], I32), v],
                       [np.array([[1, 1], [0, 3]], I32), np.array([2, 5], I32), v]], backend)


# ---- DYNAMIC_UPDATE_SLICE ------------------------------------------------------------------------
@pytest.mark.parametrize("start", [[0, 0], [1, 2], [3, 4], [-1, 9]])
@pytest.mark.parametrize("dtype", MOVE)
def test_dynamic_update_slice(backend, rng, dtype, start):
    """Start indices are clamped so that the update fits."""
    model = build("DYNAMIC_UPDATE_SLICE", [("x", (4, 5), dtype), ("u", (2, 3), dtype),
                                           ("s", (2,), "int32")], [("y", (4, 5), dtype)])
    check_op(model, [data(rng, (4, 5), dtype), data(rng, (2, 3), dtype),
                     np.array(start, I32)], backend)


def test_dynamic_update_slice_int64_start_quantized(backend, rng):
    model = build("DYNAMIC_UPDATE_SLICE", [("x", (3, 4, 2), "int8"), ("u", (1, 2, 2), "int8"),
                                           np.array([1, 1, 0], I64)],
                  [("y", (3, 4, 2), "int8")], quant=Q)
    check_op(model, [data(rng, (3, 4, 2), "int8"), data(rng, (1, 2, 2), "int8")], backend)


# ---- EMBEDDING_LOOKUP ----------------------------------------------------------------------------
@pytest.mark.parametrize("ts", [(5, 3), (6, 2, 4)])
def test_embedding_lookup(backend, rng, ts):
    ids = np.array([4, 0, 2, 2], I32)
    model = build("EMBEDDING_LOOKUP", [("i", (4,), "int32"), ("t", ts, "float32")],
                  [("y", (4,) + ts[1:], "float32")])
    check_op(model, [ids, rand(rng, ts)], backend)


def test_embedding_lookup_out_of_range_fails(backend, rng):
    model = build("EMBEDDING_LOOKUP", [("i", (2,), "int32"), rand(rng, (3, 2))],
                  [("y", (2, 2), "float32")])
    with open_session(model, backend) as sess:
        with pytest.raises(onert_py.ExecutionError, match="out of range"):
            sess.run([np.array([0, 3], I32)])
