"""Reductions (MEAN, SUM, REDUCE_MAX/MIN/PROD/ANY/ALL), SOFTMAX and LOG_SOFTMAX against the
TFLite interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.single_op import unary_model
from op_harness import ACCUMULATE, ELEMENTWISE, check_op, rand

SHAPE = (2, 3, 4, 5)
AXES = {
    "last": [3],
    "first": [0],
    "hw": [1, 2],
    "negative": [-1, -3],
    "all": [0, 1, 2, 3],
}


def reduce_model(op: str, shape: tuple[int, ...], axes: list[int], keep_dims: bool,
                 dtype: str = "float32") -> bytes:
    rank = len(shape)
    norm = {a % rank for a in axes}
    out = tuple(1 if i in norm else d for i, d in enumerate(shape) if keep_dims or i not in norm)
    return single_op_model(op, [("x", shape, dtype), np.array(axes, np.int32)],
                           [("y", out, dtype)], keep_dims=keep_dims)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("axes", list(AXES))
@pytest.mark.parametrize("op", ["MEAN", "SUM", "REDUCE_MAX"])
def test_reduce_float(backend, rng, op, axes, keep_dims):
    model = reduce_model(op, SHAPE, AXES[axes], keep_dims)
    check_op(model, [rand(rng, SHAPE)], backend, **ACCUMULATE)


@pytest.mark.parametrize("keep_dims", [True, False])
def test_sum_axis_given_twice(backend, rng, keep_dims):
    """Axis 1 named twice (as 1 and as -3) is reduced once."""
    model = reduce_model("SUM", SHAPE, [1, -3], keep_dims)
    check_op(model, [rand(rng, SHAPE)], backend, **ACCUMULATE)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("op", ["REDUCE_MIN", "REDUCE_PROD"])
def test_reduce_other_float(backend, rng, op, keep_dims):
    model = reduce_model(op, SHAPE, [1, 3], keep_dims)
    check_op(model, [rand(rng, SHAPE, low=0.5, high=1.5)], backend, **ACCUMULATE)


def test_mean_2d_last_axis(backend, rng):
    model = reduce_model("MEAN", (8, 300), [1], False)
    check_op(model, [rand(rng, (8, 300))], backend, **ACCUMULATE)


@pytest.mark.parametrize("op", ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"])
def test_reduce_int32(backend, rng, op):
    model = reduce_model(op, SHAPE, [0, 2], True, "int32")
    high = 4 if op == "REDUCE_PROD" else 100
    check_op(model, [rand(rng, SHAPE, "int32", -high, high)], backend)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("op", ["REDUCE_ANY", "REDUCE_ALL"])
def test_reduce_bool(backend, rng, op, keep_dims):
    x = rng.random(SHAPE) < (0.2 if op == "REDUCE_ANY" else 0.8)
    check_op(reduce_model(op, SHAPE, [2], keep_dims, "bool"), [x], backend)


# (shape, beta)
SOFTMAX_CASES = {
    "2d": ((3, 10), 1.0),
    "2d_beta_half": ((3, 10), 0.5),
    "4d": ((2, 3, 4, 5), 1.0),
    "4d_beta_half": ((2, 3, 4, 5), 0.5),
    "1d": ((17,), 1.0),
    "wide_logits": ((2, 1000), 1.0),
}


@pytest.mark.parametrize("case", list(SOFTMAX_CASES))
def test_softmax(backend, rng, case):
    shape, beta = SOFTMAX_CASES[case]
    model = unary_model("SOFTMAX", shape, beta=beta)
    check_op(model, [rand(rng, shape, low=-8, high=8)], backend, **ACCUMULATE)


@pytest.mark.parametrize("shape", [(3, 10), (2, 3, 4, 5), (2, 1000)])
def test_log_softmax(backend, rng, shape):
    check_op(unary_model("LOG_SOFTMAX", shape), [rand(rng, shape, low=-8, high=8)], backend,
             **ACCUMULATE)


def test_softmax_large_values(backend, rng):
    """Large logits: the max is subtracted first, so nothing overflows."""
    x = rand(rng, (4, 6), low=-100, high=100)
    check_op(unary_model("SOFTMAX", (4, 6)), [x], backend, **ELEMENTWISE)
