"""ADD_N, RANK, BROADCAST_ARGS, ZEROS_LIKE, MIRROR_PAD, REVERSE_V2, REVERSE_SEQUENCE, CUMSUM,
SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MATRIX_DIAG, MATRIX_SET_DIAG, BUCKETIZE, BITWISE_XOR,
RIGHT_SHIFT, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION against the TFLite interpreter.
Data movement runs in every dtype the interpreter takes (quantized ones move the integers)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.single_op import MOVE, Q, build, data
from op_harness import ACCUMULATE, check_op, check_runs, open_session, rand, run_onert

I32, I64 = np.int32, np.int64


# ---- ADD_N, RANK, BROADCAST_ARGS, ZEROS_LIKE ---------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_add_n(backend, rng, dtype, n):
    model = build("ADD_N", [(f"x{i}", (2, 3), dtype) for i in range(n)], [("y", (2, 3), dtype)])
    check_op(model, [data(rng, (2, 3), dtype) for _ in range(n)], backend)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "int8"])
@pytest.mark.parametrize("xs", [(2, 3, 4), (5,), ()])
def test_rank(backend, rng, xs, dtype):
    model = build("RANK", [("x", xs, dtype)], [("y", (), "int32")])
    check_op(model, [data(rng, xs, dtype)], backend)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("a,b", [([2, 1, 3], [4, 1]), ([5], [1, 1, 5]), ([1], [3, 2])])
def test_broadcast_args(backend, dtype, a, b):
    n = len(np.broadcast_shapes(tuple(a), tuple(b)))
    model = build("BROADCAST_ARGS", [("a", (len(a),), dtype), ("b", (len(b),), dtype)],
                  [("y", (n,), dtype)])
    check_op(model, [np.array(a, dtype), np.array(b, dtype)], backend)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_zeros_like(backend, rng, dtype):
    model = build("ZEROS_LIKE", [("x", (2, 3), dtype)], [("y", (2, 3), dtype)])
    check_op(model, [data(rng, (2, 3), dtype)], backend)


# ---- MIRROR_PAD, REVERSE_V2, REVERSE_SEQUENCE --------------------------------------------------
@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", MOVE)
def test_mirror_pad(backend, rng, dtype, mode):
    pads = np.array([[1, 1], [0, 2], [3, 1]], I32)
    out = (4, 5, 8)
    model = build("MIRROR_PAD", [("x", (2, 3, 4), dtype), pads], [("y", out, dtype)], mode=mode)
    check_op(model, [data(rng, (2, 3, 4), dtype)], backend)


def test_mirror_pad_quantized(backend, rng):
    model = build("MIRROR_PAD", [("x", (3, 4), "int8"), np.array([[2, 1], [1, 3]], I64)],
                  [("y", (6, 8), "int8")], quant=Q, mode="SYMMETRIC")
    check_op(model, [data(rng, (3, 4), "int8")], backend)


def test_mirror_pad_paddings_input(backend, rng):
    model = build("MIRROR_PAD", [("x", (4, 5), "float32"), ("p", (2, 2), "int32")],
                  [("y", (None, None), "float32")], mode="REFLECT")
    x = rand(rng, (4, 5))
    check_runs(model, [[x, np.array([[1, 2], [3, 0]], I32)], [x, np.array([[0, 3], [1, 4]], I32)]],
               backend)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", MOVE)
def test_reverse(backend, rng, dtype, axis):
    model = build("REVERSE_V2", [("x", (2, 3, 4), dtype), np.array([axis], I32)],
                  [("y", (2, 3, 4), dtype)])
    check_op(model, [data(rng, (2, 3, 4), dtype)], backend)


def test_reverse_quantized_axis_input(backend, rng):
    model = build("REVERSE_V2", [("x", (3, 4), "int8"), ("a", (1,), "int32")],
                  [("y", (3, 4), "int8")], quant=None)
    x = data(rng, (3, 4), "int8")
    check_runs(model, [[x, np.array([0], I32)], [x, np.array([1], I32)]], backend)
    qm = build("REVERSE_V2", [("x", (3, 4), "int8"), np.array([1], I32)],
               [("y", (3, 4), "int8")], quant=Q)
    check_op(qm, [x], backend)


@pytest.mark.parametrize("dims", [(1, 0), (0, 1), (2, 0), (1, 2)])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "uint8", "int16"])
def test_reverse_sequence(backend, rng, dtype, dims):
    """(The interpreter refuses bool and int8.)"""
    seq_dim, batch_dim = dims
    xs = (3, 4, 5)
    lens = np.array([0, 2, 3, 4, 5][:xs[batch_dim]], I32)
    lens = np.minimum(lens, xs[seq_dim])
    model = build("REVERSE_SEQUENCE", [("x", xs, dtype), lens], [("y", xs, dtype)],
                  seq_dim=seq_dim, batch_dim=batch_dim)
    check_op(model, [data(rng, xs, dtype)], backend)


# ---- CUMSUM --------------------------------------------------------------------------------------
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True),
                                               (True, True)])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_cumsum(backend, rng, dtype, axis, exclusive, reverse):
    model = build("CUMSUM", [("x", (3, 4, 5), dtype), np.array(axis, I32)],
                  [("y", (3, 4, 5), dtype)], exclusive=exclusive, reverse=reverse)
    check_op(model, [data(rng, (3, 4, 5), dtype)], backend, **ACCUMULATE)


# ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND --------------------------------------------------------
S2B = {  # input shape, block, paddings, output shape
    "4d": ((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]], (12, 2, 2, 3)),
    "4d_padded": ((1, 3, 5, 2), [2, 2], [[1, 0], [2, 1]], (4, 2, 4, 2)),
    "3d": ((2, 6, 3), [3], [[1, 2]], (6, 3, 3)),
}


@pytest.mark.parametrize("case", list(S2B))
@pytest.mark.parametrize("dtype", MOVE)
def test_space_to_batch(backend, rng, dtype, case):
    xs, block, pads, out = S2B[case]
    model = build("SPACE_TO_BATCH_ND", [("x", xs, dtype), np.array(block, I32),
                                        np.array(pads, I32)], [("y", out, dtype)])
    check_op(model, [data(rng, xs, dtype)], backend)


@pytest.mark.parametrize("case", list(S2B))
@pytest.mark.parametrize("dtype", MOVE)
def test_batch_to_space(backend, rng, dtype, case):
    out, block, crops, xs = S2B[case]
    model = build("BATCH_TO_SPACE_ND", [("x", xs, dtype), np.array(block, I32),
                                        np.array(crops, I32)], [("y", out, dtype)])
    check_op(model, [data(rng, xs, dtype)], backend)


@pytest.mark.parametrize("op", ["SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_space_batch_quantized(backend, rng, op, dtype):
    """Quantized SPACE_TO_BATCH_ND pads with the zero point."""
    a, b = (1, 3, 5, 2), (4, 2, 4, 2)
    xs, out = (a, b) if op == "SPACE_TO_BATCH_ND" else (b, a)
    model = build(op, [("x", xs, dtype), np.array([2, 2], I32), np.array([[1, 0], [2, 1]], I32)],
                  [("y", out, dtype)], quant=Q)
    check_op(model, [data(rng, xs, dtype)], backend)


def test_space_to_batch_params_input(backend, rng):
    model = build("SPACE_TO_BATCH_ND", [("x", (1, 4, 4, 1), "float32"), ("b", (2,), "int32"),
                                        ("p", (2, 2), "int32")], [("y", (None,) * 4, "float32")])
    x = rand(rng, (1, 4, 4, 1))
    check_runs(model, [[x, np.array([2, 2], I32), np.zeros((2, 2), I32)],
                       [x, np.array([1, 3], I32), np.array([[0, 1], [1, 1]], I32)]], backend)


# ---- MATRIX_DIAG, MATRIX_SET_DIAG ----------------------------------------------------------------
DIAG = ["float32", "int32", "int64", "int8", "uint8", "int16"]


@pytest.mark.parametrize("xs", [(4,), (2, 3)])
@pytest.mark.parametrize("dtype", DIAG)
def test_matrix_diag(backend, rng, dtype, xs):
    model = build("MATRIX_DIAG", [("x", xs, dtype)], [("y", xs + xs[-1:], dtype)])
    check_op(model, [data(rng, xs, dtype)], backend)


@pytest.mark.parametrize("xs", [(3, 3), (2, 3, 5), (2, 4, 2)])
@pytest.mark.parametrize("dtype", DIAG)
def test_matrix_set_diag(backend, rng, dtype, xs):
    ds = xs[:-2] + (min(xs[-2:]),)
    model = build("MATRIX_SET_DIAG", [("x", xs, dtype), ("d", ds, dtype)], [("y", xs, dtype)])
    check_op(model, [data(rng, xs, dtype), data(rng, ds, dtype)], backend)


def test_matrix_diag_bool(backend):
    """The interpreter writes bool diagonals into the first row (a bug of its kernel), so the
    expected values here are the op's definition."""
    model = build("MATRIX_DIAG", [("x", (2, 3), "bool")], [("y", (2, 3, 3), "bool")])
    x = np.array([[True, False, True], [False, True, True]])
    got = run_onert(model, [x], backend)[0]
    np.testing.assert_array_equal(got, np.stack([np.diag(r) for r in x]))
    model = build("MATRIX_SET_DIAG", [("x", (2, 3), "bool"), ("d", (2,), "bool")],
                  [("y", (2, 3), "bool")])
    base = np.ones((2, 3), bool)
    got = run_onert(model, [base, np.array([False, True])], backend)[0]
    np.testing.assert_array_equal(got, [[False, True, True], [True, True, True]])


# ---- BUCKETIZE, BITWISE_XOR, RIGHT_SHIFT ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_bucketize(backend, rng, dtype):
    bounds = [-5.0, -1.0, 0.0, 2.5, 10.0]
    x = np.array([-7, -5, -1, -0.5, 0, 1, 2.5, 3, 10, 11, 99], np.float64).astype(dtype)
    model = build("BUCKETIZE", [("x", x.shape, dtype)], [("y", x.shape, "int32")],
                  boundaries=bounds)
    check_op(model, [x], backend)


BIT_TYPES = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]


@pytest.mark.parametrize("dtype", BIT_TYPES)
def test_bitwise_xor(backend, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (2, 3, 4), endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, (3, 1), endpoint=True).astype(dtype)
    model = build("BITWISE_XOR", [("a", a.shape, dtype), ("b", b.shape, dtype)],
                  [("y", (2, 3, 4), dtype)])
    check_op(model, [a, b], backend)


@pytest.mark.parametrize("dtype", BIT_TYPES)
def test_right_shift(backend, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (2, 8), endpoint=True).astype(dtype)
    s = rng.integers(0, info.bits, (1, 8)).astype(dtype)
    model = build("RIGHT_SHIFT", [("a", a.shape, dtype), ("s", s.shape, dtype)],
                  [("y", (2, 8), dtype)])
    check_op(model, [a, s], backend)


# ---- L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION ----------------------------------------------
@pytest.mark.parametrize("xs", [(2, 5), (1, 2, 3, 8)])
def test_l2_normalization(backend, rng, xs):
    x = rand(rng, xs)
    x[0, ...] = 0   # an all-zero row stays zero
    model = build("L2_NORMALIZATION", [("x", xs, "float32")], [("y", xs, "float32")])
    check_op(model, [x], backend)


@pytest.mark.parametrize("radius,bias,alpha,beta", [(2, 1.0, 1.0, 0.5), (5, 0.5, 0.1, 0.75),
                                                    (0, 2.0, 0.3, 1.0)])
def test_local_response_normalization(backend, rng, radius, bias, alpha, beta):
    model = build("LOCAL_RESPONSE_NORMALIZATION", [("x", (2, 3, 2, 7), "float32")],
                  [("y", (2, 3, 2, 7), "float32")], radius=radius, bias=bias, alpha=alpha,
                  beta=beta)
    check_op(model, [rand(rng, (2, 3, 2, 7))], backend, **ACCUMULATE)


def test_mirror_pad_too_large_fails(backend, rng):
    model = build("MIRROR_PAD", [("x", (3,), "float32"), ("p", (1, 2), "int32")],
                  [("y", (None,), "float32")], mode="REFLECT")
    with open_session(model, backend) as sess:
        with pytest.raises(onert_py.ExecutionError, match="too large"):
            sess.run([rand(rng, (3,)), np.array([[3, 0]], I32)])
