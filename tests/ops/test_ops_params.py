"""Parameter coverage against the TFLite interpreter: every reduction x keep_dims x axes form x
dtype the interpreter takes, SOFTMAX with beta != 1 and LOG_SOFTMAX on ranks 1-4,
BATCH_MATMUL on ranks 2-5 with broadcast batch dims and adj_x / adj_y. (Pooling, resizing and
depthwise convolution are in test_ops_params_spatial.py.)

Dtypes the interpreter refuses or computes through its quantized path (so not plain integer
arithmetic) are left out: SUM / MEAN / REDUCE_PROD on unquantized int8, uint8, int16 (the
interpreter rescales with the zero quantization scale), any reduction but ANY/ALL on bool,
ANY/ALL on anything but bool, int64 axes, BATCH_MATMUL on int32 / int64 / uint8 / bool (refused) and on
unquantized int8 / int16 (quantized path)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.single_op import unary_model
from op_harness import ACCUMULATE, check_op, rand

# ---- reductions ------------------------------------------------------------------------------
SHAPE = (2, 3, 4)     # distinct sizes: a reduction over the wrong axis changes the shape
AXES = {
    "single": [1],
    "multiple": [0, 2],
    "negative": [-1, -3],
    "all": [0, 1, 2],
    "duplicate": [2, -1, 0],
    "none": [],
}
NUMERIC_OPS = ["SUM", "MEAN", "REDUCE_PROD", "REDUCE_MAX", "REDUCE_MIN"]


def reduce_out(shape: tuple[int, ...], axes: list[int], keep_dims: bool) -> tuple[int, ...]:
    norm = {a % len(shape) for a in axes}
    return tuple(1 if i in norm else d for i, d in enumerate(shape) if keep_dims or i not in norm)


def reduce_model(op: str, axes: list[int], keep_dims: bool, dtype: str) -> bytes:
    # the interpreter takes int32 axes only
    return single_op_model(op, [("x", SHAPE, dtype), np.array(axes, np.int32)],
                           [("y", reduce_out(SHAPE, axes, keep_dims), dtype)],
                           keep_dims=keep_dims)


def reduce_data(rng: np.random.Generator, op: str, dtype: str) -> np.ndarray:
    """Data whose reduction stays in range: products of 24 values of magnitude <= 2 at most 2**24
    (int32-safe), floats away from 0 for a meaningful product."""
    if op == "REDUCE_PROD":
        if dtype == "float32":
            return rand(rng, SHAPE, low=0.5, high=1.5) * rng.choice([-1, 1], SHAPE).astype(
                np.float32)
        return rng.choice([-2, -1, 1, 1, 2], SHAPE).astype(dtype)
    if np.dtype(dtype).kind == "u":
        return rand(rng, SHAPE, dtype, 0, 250)
    if np.dtype(dtype).kind == "i":
        return rand(rng, SHAPE, dtype, -120, 120)
    return rand(rng, SHAPE, dtype, -4, 4)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", list(AXES))
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("op", NUMERIC_OPS)
def test_reduce_params(backend, rng, op, dtype, axes, keep_dims):
    model = reduce_model(op, AXES[axes], keep_dims, dtype)
    check_op(model, [reduce_data(rng, op, dtype)], backend, **ACCUMULATE)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", list(AXES))
@pytest.mark.parametrize("op", ["REDUCE_ANY", "REDUCE_ALL"])
def test_reduce_bool_params(backend, rng, op, axes, keep_dims):
    # mostly one value, so that some (not all) reduced groups differ from it
    x = rng.random(SHAPE) < (0.15 if op == "REDUCE_ANY" else 0.85)
    check_op(reduce_model(op, AXES[axes], keep_dims, "bool"), [x], backend)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", ["single", "negative", "all"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
def test_reduce_max_min_small_ints(backend, rng, op, dtype, axes, keep_dims):
    """Unquantized 8/16-bit max and min: plain comparisons in the interpreter."""
    model = reduce_model(op, AXES[axes], keep_dims, dtype)
    check_op(model, [reduce_data(rng, op, dtype)], backend)


@pytest.mark.parametrize("keep_dims", [True, False])
def test_mean_int_rounding(backend, keep_dims):
    """Integer MEAN of sums that do not divide evenly, negative ones included."""
    x = np.array([[[-7, 2, 0, 1], [5, 5, 5, 6], [-1, -1, 0, 0]],
                  [[3, -8, 1, 1], [0, 0, 0, 1], [-5, 4, 4, -2]]], np.int32)
    check_op(reduce_model("MEAN", [2], keep_dims, "int32"), [x], backend)


# ---- fused activations of the binary arithmetic ops ------------------------------------------
@pytest.mark.parametrize("act", ["RELU", "RELU6", "RELU_N1_TO_1", "TANH", "SIGN_BIT"])
@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "DIV"])
def test_binary_fused_activation(backend, rng, op, act):
    """The interpreter clamps for RELU, RELU6 and RELU_N1_TO_1 and ignores TANH and SIGN_BIT."""
    model = single_op_model(op, [("a", (2, 3, 4), "float32"), ("b", (3, 1), "float32")],
                            [("y", (2, 3, 4), "float32")], fused_activation_function=act)
    check_op(model, [rand(rng, (2, 3, 4), low=-8, high=8), rand(rng, (3, 1), low=0.5, high=3)],
             backend, **ACCUMULATE)


# ---- SOFTMAX / LOG_SOFTMAX ------------------------------------------------------------------
RANKS = {1: (7,), 2: (3, 6), 3: (2, 3, 5), 4: (2, 2, 3, 4)}


@pytest.mark.parametrize("beta", [0.25, 2.0, 1.7])
@pytest.mark.parametrize("rank", list(RANKS))
def test_softmax_beta(backend, rng, rank, beta):
    shape = RANKS[rank]
    model = unary_model("SOFTMAX", shape, beta=beta)
    check_op(model, [rand(rng, shape, low=-6, high=6)], backend, **ACCUMULATE)


@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_softmax_last_dim_one(backend, rng, beta):
    check_op(unary_model("SOFTMAX", (3, 2, 1), beta=beta), [rand(rng, (3, 2, 1))], backend,
             **ACCUMULATE)


@pytest.mark.parametrize("rank", list(RANKS))
def test_log_softmax_ranks(backend, rng, rank):
    shape = RANKS[rank]
    check_op(unary_model("LOG_SOFTMAX", shape), [rand(rng, shape, low=-30, high=30)], backend,
             **ACCUMULATE)


# ---- BATCH_MATMUL ----------------------------------------------------------------------------
# (lhs shape, rhs shape) without adjoints; the cases transpose their last two dims for adj
BMM_SHAPES = {
    "rank2": ((3, 4), (4, 5)),
    "rank3_broadcast_rhs": ((2, 3, 4), (1, 4, 5)),
    "rank3_vs_2": ((2, 3, 4), (4, 2)),
    "rank2_vs_4": ((3, 4), (2, 3, 4, 5)),
    "rank4_both_broadcast": ((2, 1, 3, 4), (1, 3, 4, 2)),
    "rank5": ((2, 1, 2, 3, 4), (1, 2, 1, 4, 3)),
    "rank5_vs_3": ((1, 2, 1, 3, 4), (3, 4, 5)),
    "vector_rows": ((2, 1, 4), (2, 4, 1)),
}


@pytest.mark.parametrize("adj_x,adj_y", [(False, False), (True, False), (False, True),
                                         (True, True)])
@pytest.mark.parametrize("case", list(BMM_SHAPES))
def test_batch_matmul_params(backend, rng, case, adj_x, adj_y):
    a_s, b_s = BMM_SHAPES[case]
    a, b = rand(rng, a_s), rand(rng, b_s)
    out = np.matmul(a, b).shape
    if adj_x:
        a = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    if adj_y:
        b = np.ascontiguousarray(np.swapaxes(b, -1, -2))
    model = single_op_model("BATCH_MATMUL", [("a", a.shape, "float32"), ("b", b.shape, "float32")],
                            [("y", out, "float32")], adj_x=adj_x, adj_y=adj_y)
    check_op(model, [a, b], backend, **ACCUMULATE)


@pytest.mark.parametrize("adj_y", [False, True])
def test_batch_matmul_const_rhs_broadcast(backend, rng, adj_y):
    w = rand(rng, (2, 1, 5, 4) if adj_y else (2, 1, 4, 5))
    model = single_op_model("BATCH_MATMUL", [("a", (3, 3, 4), "float32"), w],
                            [("y", (2, 3, 3, 5), "float32")], adj_y=adj_y)
    check_op(model, [rand(rng, (3, 3, 4))], backend, **ACCUMULATE)
