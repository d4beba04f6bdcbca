"""Quantized pooling (AVERAGE_POOL_2D, MAX_POOL_2D) and reductions (MEAN, SUM, REDUCE_MAX,
REDUCE_MIN, REDUCE_PROD) in int8/uint8/int16 against the interpreter, bit-exact."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from op_harness import conv_out
from quant_harness import QTYPES, check_qop, qrand, qspec

DTYPES = ["int8", "uint8", "int16"]

# (input NHWC, filter (h, w), stride (h, w), padding, activation)
POOL_CASES = {
    "2x2_s2_valid": ((1, 8, 8, 3), (2, 2), (2, 2), "VALID", "NONE"),
    "2x2_s2_same_odd": ((1, 7, 9, 17), (2, 2), (2, 2), "SAME", "NONE"),
    "3x3_s1_same": ((1, 6, 7, 8), (3, 3), (1, 1), "SAME", "NONE"),
    "3x3_s2_same": ((2, 9, 8, 33), (3, 3), (2, 2), "SAME", "NONE"),
    "3x2_s_2x1": ((1, 8, 6, 3), (3, 2), (2, 1), "SAME", "NONE"),
    "global": ((2, 5, 5, 16), (5, 5), (1, 1), "VALID", "NONE"),
    "big_window": ((1, 20, 20, 5), (20, 20), (1, 1), "VALID", "NONE"),
    "relu6": ((1, 8, 8, 3), (3, 3), (2, 2), "SAME", "RELU6"),
    "relu": ((1, 6, 6, 3), (2, 2), (2, 2), "VALID", "RELU"),
    "relu_n1_to_1": ((1, 6, 6, 3), (2, 2), (1, 1), "VALID", "RELU_N1_TO_1"),
}


def pool_model(op, case, dtype, out_q=None):
    xs, (fh, fw), (sh, sw), padding, act = POOL_CASES[case]
    out = (xs[0], conv_out(xs[1], fh, sh, 1, padding), conv_out(xs[2], fw, sw, 1, padding), xs[3])
    _, scale, zp = QTYPES[dtype]
    oscale, ozp = out_q or (scale, zp)
    return xs, single_op_model(op, [qspec("x", xs, dtype, scale, zp)],
                               [qspec("y", out, dtype, oscale, ozp)],
                               padding=padding, stride_h=sh, stride_w=sw, filter_height=fh,
                               filter_width=fw, fused_activation_function=act)


@pytest.mark.parametrize("case", list(POOL_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_q_pool2d(op, dtype, case):
    xs, model = pool_model(op, case, dtype)
    rng = np.random.default_rng(sum(map(ord, case)))
    x = qrand(rng, xs, dtype)
    if case == "2x2_s2_valid":      # small values: many exact .5 ties of the average
        x = qrand(rng, xs, dtype, 0, 3) if dtype == "uint8" else qrand(rng, xs, dtype, -3, 3)
    check_qop(model, [x])


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_q_pool2d_refuses_requantization(op):
    """pooling.cc expects the output's scale and zero point to be the input's."""
    _, model = pool_model(op, "2x2_s2_valid", "int8", out_q=(0.1, 0))
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(model, backends="cpu")


def test_q_l2_pool_refused():
    """TFLite has no quantized L2_POOL_2D (Prepare refuses it); neither have we."""
    _, model = pool_model("L2_POOL_2D", "2x2_s2_valid", "int8")
    with pytest.raises(onert_py.CompileError):
        onert_py.Session(model, backends="cpu")


# ---------------------------------------------------------------------------- reductions
REDUCE_CASES = {   # name: (input shape, axes, keep_dims)
    "hw_keep": ((2, 5, 7, 21), [1, 2], True),          # the optimized 4-D mean (16 + 5 lanes)
    "hw_keep_rev": ((1, 4, 4, 32), [2, 1], True),
    "hw_nokeep": ((2, 5, 7, 21), [1, 2], False),
    "hw_negative": ((1, 3, 6, 17), [-3, -2], True),    # general path: raw axes are not 1, 2
    "last": ((3, 4, 37), [2], False),
    "first_keep": ((6, 4, 5), [0], True),
    "all": ((2, 3, 4, 5), [0, 1, 2, 3], False),
    "mid_pair": ((2, 9, 3, 4), [1, 3], True),
}
# (input scale, output scale) ratios
RATIOS = {"same": 1.0, "down": 0.37, "up": 3.1}


def reduce_model(op, case, dtype, ratio, ozp_shift=0):
    """case: a REDUCE_CASES name or an (input shape, axes, keep_dims) triple."""
    shape, axes, keep = REDUCE_CASES[case] if isinstance(case, str) else case
    rank = len(shape)
    norm = {a % rank for a in axes}
    out = tuple(1 if i in norm else d for i, d in enumerate(shape) if keep or i not in norm)
    _, scale, zp = QTYPES[dtype]
    ozp = zp if dtype == "int16" else zp + ozp_shift
    return shape, single_op_model(op, [qspec("x", shape, dtype, scale, zp),
                                       np.array(axes, np.int32)],
                                  [qspec("y", out, dtype, scale * ratio, ozp)], keep_dims=keep)


@pytest.mark.parametrize("ratio", list(RATIOS))
@pytest.mark.parametrize("case", list(REDUCE_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_q_mean(dtype, case, ratio):
    shape, model = reduce_model("MEAN", case, dtype, RATIOS[ratio], ozp_shift=5)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_qop(model, [qrand(rng, shape, dtype)])


@pytest.mark.parametrize("ratio", ["same", "up"])
@pytest.mark.parametrize("case", ["hw_keep", "last", "all", "mid_pair"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_q_sum(dtype, case, ratio):
    """8-bit SUM rescales in float32 and wraps (no clamp) like the interpreter."""
    shape, model = reduce_model("SUM", case, dtype, RATIOS[ratio] * 4, ozp_shift=-2)
    rng = np.random.default_rng(sum(map(ord, case + ratio)))
    check_qop(model, [qrand(rng, shape, dtype)])


@pytest.mark.parametrize("case", ["last", "mid_pair"])
def test_q_sum_int16(case):
    """int16 SUM is the generic (wrapping) int16 sum; it needs equal scales."""
    shape, model = reduce_model("SUM", case, "int16", 1.0)
    rng = np.random.default_rng(7)
    check_qop(model, [qrand(rng, shape, "int16", -3000, 3000)])
    _, bad = reduce_model("SUM", case, "int16", 2.0)
    with pytest.raises(onert_py.CompileError, match="same scale"):
        onert_py.Session(bad, backends="cpu")


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("case", ["hw_keep", "last", "all", "mid_pair"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
def test_q_reduce_max_min(op, dtype, case, keep):
    shape, axes, _ = REDUCE_CASES[case]
    shape, model = reduce_model(op, (shape, axes, keep), dtype, 1.0)
    check_qop(model, [qrand(np.random.default_rng(3), shape, dtype)])


@pytest.mark.parametrize("op", ["REDUCE_MAX", "REDUCE_MIN"])
def test_q_reduce_max_min_refuses_requantization(op):
    _, model = reduce_model(op, "last", "int8", 2.0)
    with pytest.raises(onert_py.CompileError, match="same scale"):
        onert_py.Session(model, backends="cpu")


@pytest.mark.parametrize("case", ["last", "first_keep", "mid_pair", "all"])
@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_q_reduce_prod(dtype, case):
    shape, axes, keep = REDUCE_CASES[case]
    shape = tuple(min(d, 4) for d in shape)
    shape, model = reduce_model("REDUCE_PROD", (shape, axes, keep), dtype, 1.0)
    lo, hi = (-12, 12) if dtype == "int8" else (-40, 40)
    check_qop(model, [qrand(np.random.default_rng(5), shape, dtype, lo, hi)])
