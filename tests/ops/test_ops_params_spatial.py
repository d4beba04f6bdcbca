"""Parameter coverage of the spatial ops against the TFLite interpreter: AVERAGE/MAX/L2 pooling
(SAME/VALID, strides, filter sizes, fused activations), RESIZE_BILINEAR and
RESIZE_NEAREST_NEIGHBOR (align_corners / half_pixel_centers, upscale and downscale) and
DEPTHWISE_CONV_2D (depth_multiplier 1/2/3 with dilation, strides, padding, bias and fused
activations)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.single_op import depthwise_models, pool_model
from op_harness import ACCUMULATE, check_op, rand

POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"]
ACTS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]

# ---- pooling -----------------------------------------------------------------------------------
# (input NHWC, filter (h, w), stride (h, w))
POOL_GEOMETRY = {
    "1x1_s2": ((1, 5, 6, 2), (1, 1), (2, 2)),
    "2x3_s1x2": ((2, 6, 7, 3), (2, 3), (1, 2)),
    "3x1_s3x1": ((1, 7, 5, 2), (3, 1), (3, 1)),
    "4x4_s3": ((1, 9, 10, 2), (4, 4), (3, 3)),
    "2x2_s3_gaps": ((1, 8, 8, 1), (2, 2), (3, 3)),
    "5x5_s1": ((1, 6, 6, 2), (5, 5), (1, 1)),
}


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("geometry", list(POOL_GEOMETRY))
@pytest.mark.parametrize("op", POOLS)
def test_pool_geometry(backend, rng, op, geometry, padding):
    xs, f, s = POOL_GEOMETRY[geometry]
    low = 0 if op == "L2_POOL_2D" else -4
    check_op(pool_model(op, xs, f, s, padding, "NONE"), [rand(rng, xs, low=low, high=4)],
             backend, **ACCUMULATE)


@pytest.mark.parametrize("act", ACTS + ["TANH", "SIGN_BIT"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("op", POOLS)
def test_pool_activation(backend, rng, op, padding, act):
    """Values on both sides of every clamp. The interpreter's float pools clamp to the range of
    RELU, RELU6 and RELU_N1_TO_1 and ignore the other activations."""
    xs = (1, 5, 6, 2)
    model = pool_model(op, xs, (2, 2), (2, 2), padding, act)
    check_op(model, [rand(rng, xs, low=-8, high=8)], backend, **ACCUMULATE)


# ---- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR -----------------------------------------------
SIZES = {
    "up_3x": ((1, 2, 3, 2), (6, 9)),
    "up_odd": ((2, 3, 3, 1), (7, 4)),
    "down_odd": ((1, 7, 9, 2), (3, 5)),
    "down_3x": ((2, 9, 6, 1), (3, 2)),
    "identity": ((1, 4, 5, 2), (4, 5)),
    "up_h_down_w": ((1, 3, 8, 2), (5, 3)),
    "to_2x2_from_1xn": ((1, 1, 5, 1), (2, 2)),
}
MODES = {"none": (False, False), "align_corners": (True, False), "half_pixel": (False, True)}


def resize_model(op: str, xs, hw, align: bool, half: bool, dtype: str = "float32") -> bytes:
    return single_op_model(op, [("x", xs, dtype), np.array(hw, np.int32)],
                           [("y", (xs[0], hw[0], hw[1], xs[3]), dtype)], align_corners=align,
                           half_pixel_centers=half)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("size", list(SIZES))
def test_resize_bilinear_params(backend, rng, size, mode):
    xs, hw = SIZES[size]
    model = resize_model("RESIZE_BILINEAR", xs, hw, *MODES[mode])
    check_op(model, [rand(rng, xs, low=-5, high=5)], backend, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", list(MODES) + ["both"])
@pytest.mark.parametrize("size", list(SIZES))
def test_resize_nearest_params(backend, rng, size, mode):
    xs, hw = SIZES[size]
    align, half = MODES.get(mode, (True, True))
    model = resize_model("RESIZE_NEAREST_NEIGHBOR", xs, hw, align, half)
    check_op(model, [np.arange(np.prod(xs), dtype=np.float32).reshape(xs)], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "bool"])
@pytest.mark.parametrize("mode", ["none", "half_pixel"])
def test_resize_nearest_dtypes(backend, rng, mode, dtype):
    """Unquantized integer and bool data (the interpreter refuses int64)."""
    xs, hw = (1, 3, 4, 2), (5, 7)
    model = resize_model("RESIZE_NEAREST_NEIGHBOR", xs, hw, *MODES[mode], dtype=dtype)
    low = 0 if dtype == "uint8" else -100
    check_op(model, [rand(rng, xs, dtype, low, 100)], backend)


# ---- DEPTHWISE_CONV_2D -----------------------------------------------------------------------
# every multiplier x dilation x stride x padding; bias and activation cycle over the grid
DW_GRID = list(itertools.product([1, 2, 3], [(1, 1), (2, 2), (2, 1)], [(1, 1), (2, 2), (1, 2)],
                                 ["SAME", "VALID"]))


def dw_case_id(case) -> str:
    m, d, s, p = case
    return f"m{m}-d{d[0]}x{d[1]}-s{s[0]}x{s[1]}-{p}"


@pytest.mark.parametrize("case", DW_GRID, ids=[dw_case_id(c) for c in DW_GRID])
def test_depthwise_params(backend, rng, case):
    mult, (dh, dw), (sh, sw), padding = case
    k = DW_GRID.index(case)
    has_bias, act = k % 2 == 0, ACTS[k % len(ACTS)]
    xs = (1, 9, 8, 2)
    model, ref = depthwise_models(rng, xs, (3, 2), mult, (sh, sw), (dh, dw), padding, has_bias,
                                  act)
    check_op(model, [rand(rng, xs)], backend, reference=ref, **ACCUMULATE)


@pytest.mark.parametrize("act", ACTS + ["TANH", "SIGN_BIT"])
@pytest.mark.parametrize("mult", [1, 3])
def test_depthwise_batch_activation(backend, rng, mult, act):
    """Batch 2 with each activation (the interpreter ignores TANH and SIGN_BIT here)."""
    xs = (2, 5, 6, 3)
    cout = 3 * mult
    w, bias = rand(rng, (1, 3, 3, cout)), rand(rng, (cout,))
    model = single_op_model("DEPTHWISE_CONV_2D", [("x", xs, "float32"), w, bias],
                            [("y", (2, 3, 3, cout), "float32")], padding="SAME", stride_h=2,
                            stride_w=2, dilation_h_factor=2, dilation_w_factor=2,
                            depth_multiplier=mult, fused_activation_function=act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)


@pytest.mark.parametrize("act", ACTS + ["TANH", "SIGN_BIT"])
def test_conv2d_activation(backend, rng, act):
    """CONV_2D with each activation (the interpreter ignores TANH and SIGN_BIT here too)."""
    xs = (2, 5, 6, 3)
    w, bias = rand(rng, (4, 3, 3, 3)), rand(rng, (4,))
    model = single_op_model("CONV_2D", [("x", xs, "float32"), w, bias],
                            [("y", (2, 3, 3, 4), "float32")], padding="SAME", stride_h=2,
                            stride_w=2, fused_activation_function=act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)
