"""Quantized pooling (AVERAGE_POOL_2D, MAX_POOL_2D) and reductions (MEAN, SUM, REDUCE_MAX,
REDUCE_MIN, REDUCE_PROD) in int8/uint8/int16 against the interpreter, bit-exact."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.qpool import POOL_CASES, RATIOS, REDUCE_CASES, pool_model, reduce_model
from op_harness import with_fallback
from quant_harness import check_qop, qrand

DTYPES = ["int8", "uint8", "int16"]


@pytest.mark.parametrize("case", list(POOL_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_q_pool2d(backend, op, dtype, case):
    xs, model = pool_model(op, case, dtype)
    rng = np.random.default_rng(sum(map(ord, case)))
    x = qrand(rng, xs, dtype)
    if case == "2x2_s2_valid":      # small values: many exact .5 ties of the average
        x = qrand(rng, xs, dtype, 0, 3) if dtype == "uint8" else qrand(rng, xs, dtype, -3, 3)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_q_pool2d_refuses_requantization(backend, op):
    """pooling.cc expects the output's scale and zero point to be the input's."""
    _, model = pool_model(op, "2x2_s2_valid", "int8", out_q=(0.1, 0))
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(model, backends=with_fallback(backend))


def test_q_l2_pool_refused(backend):
    """TFLite has no quantized L2_POOL_2D (Prepare refuses it); neither have we."""
    _, model = pool_model("L2_POOL_2D", "2x2_s2_valid", "int8")
    with pytest.raises(onert_py.CompileError):
        onert_py.Session(model, backends=with_fallback(backend))


@pytest.mark.parametrize("ratio", list(RATIOS))
@pytest.mark.parametrize("case", list(REDUCE_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_q_mean(backend, dtype, case, ratio):
    shape, model = reduce_model("MEAN", case, dtype, RATIOS[ratio], ozp_shift=5)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_qop(model, [qrand(rng, shape, dtype)], backend)


@pytest.mark.parametrize("ratio", ["same", "up"])
@pytest.mark.parametrize("case", ["hw_keep", "last", "all", "mid_pair"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_sum(backend, dtype, case, ratio):
    """8-bit SUM rescales in float32 and wraps (no clamp) like the interpreter."""
    shape, model = reduce_model("SUM", case, dtype, RATIOS[ratio] * 4, ozp_shift=-2)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_qop(model, [qrand(rng, shape, dtype)], backend)


@pytest.mark.parametrize("case", ["last", "mid_pair"])
def test_q_sum_int16(backend, case):
    """int16 SUM is the generic (wrapping) int16 sum; it needs equal scales."""
    shape, model = reduce_model("SUM", case, "int16", 1.0)
    rng = np.random.default_rng(7)
    check_qop(model, [qrand(rng, shape, "int16", -3000, 3000)], backend)
    _, bad = reduce_model("SUM", case, "int16", 2.0)
    with pytest.raises(onert_py.CompileError, match="same scale"):
        onert_py.Session(bad, backends=with_fallback(backend))


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("case", ["hw_keep", "last", "all", "mid_pair"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
def test_q_reduce_max_min(backend, op, dtype, case, keep):
    shape, axes, _ = REDUCE_CASES[case]
    shape, model = reduce_model(op, (shape, axes, keep), dtype, 1.0)
    check_qop(model, [qrand(np.random.default_rng(3), shape, dtype)], backend)


@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
def test_q_reduce_max_min_refuses_requantization(backend, op):
    _, model = reduce_model(op, "last", "int8", 2.0)
    with pytest.raises(onert_py.CompileError, match="same scale"):
        onert_py.Session(model, backends=with_fallback(backend))


@pytest.mark.parametrize("case", ["last", "first_keep", "mid_pair", "all"])
@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_q_reduce_prod(backend, dtype, case):
    shape, axes, keep = REDUCE_CASES[case]
    shape = tuple(min(d, 4) for d in shape)
    shape, model = reduce_model("REDUCE_PROD", (shape, axes, keep), dtype, 1.0)
    lo, hi = (-12, 12) if dtype == "int8" else (-40, 40)
    check_qop(model, [qrand(np.random.default_rng(5), shape, dtype, lo, hi)], backend)
