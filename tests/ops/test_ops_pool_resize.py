"""AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D, PRELU, RESIZE_BILINEAR and
RESIZE_NEAREST_NEIGHBOR against the TFLite interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from builders.single_op import pool_model
from op_harness import ACCUMULATE, ELEMENTWISE, check_op, rand, with_fallback

POOLS = ["AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"]

# (input NHWC, filter (h, w), stride (h, w), padding, activation)
POOL_CASES = {
    "2x2_s2_valid": ((1, 8, 8, 3), (2, 2), (2, 2), "VALID", "NONE"),
    "2x2_s2_same_odd": ((1, 7, 9, 3), (2, 2), (2, 2), "SAME", "NONE"),
    "3x3_s1_same": ((1, 6, 7, 2), (3, 3), (1, 1), "SAME", "NONE"),
    "3x3_s1_valid": ((1, 6, 7, 2), (3, 3), (1, 1), "VALID", "NONE"),
    "3x3_s2_same": ((2, 9, 8, 4), (3, 3), (2, 2), "SAME", "NONE"),
    "3x3_s2_valid": ((1, 9, 8, 4), (3, 3), (2, 2), "VALID", "NONE"),
    "3x2_s_2x1": ((1, 8, 6, 3), (3, 2), (2, 1), "SAME", "NONE"),
    "global": ((2, 5, 5, 8), (5, 5), (1, 1), "VALID", "NONE"),
    "relu6": ((1, 8, 8, 3), (3, 3), (2, 2), "SAME", "RELU6"),
    "relu": ((1, 6, 6, 3), (2, 2), (2, 2), "VALID", "RELU"),
    "filter_over_input": ((1, 2, 3, 2), (3, 3), (1, 1), "SAME", "NONE"),
}


@pytest.mark.parametrize("case", list(POOL_CASES))
@pytest.mark.parametrize("op", POOLS)
def test_pool2d(backend, rng, op, case):
    xs, f, s, padding, act = POOL_CASES[case]
    model = pool_model(op, xs, f, s, padding, act)
    low = -4 if op != "L2_POOL_2D" else 0
    check_op(model, [rand(rng, xs, low=low, high=8)], backend, **ACCUMULATE)


def test_max_pool_all_negative(backend, rng):
    """SAME padding must never win a max: all inputs are negative."""
    model = single_op_model("MAX_POOL_2D", [("x", (1, 5, 5, 2), "float32")],
                            [("y", (1, 3, 3, 2), "float32")], padding="SAME", stride_h=2,
                            stride_w=2, filter_height=3, filter_width=3)
    check_op(model, [rand(rng, (1, 5, 5, 2), low=-9, high=-1)], backend)


# ---- PRELU -----------------------------------------------------------------------------------
PRELU_CASES = {
    "per_channel": ((1, 4, 5, 3), (3,)),
    "per_channel_hw1": ((2, 4, 5, 3), (1, 1, 3)),
    "full": ((1, 4, 5, 3), (4, 5, 3)),
    "2d": ((6, 4), (4,)),
    "scalar_like": ((2, 3, 4), (1,)),
}


@pytest.mark.parametrize("case", list(PRELU_CASES))
def test_prelu_const_alpha(backend, rng, case):
    xs, alpha_shape = PRELU_CASES[case]
    alpha = rand(rng, alpha_shape, low=0.0, high=0.5)
    model = single_op_model("PRELU", [("x", xs, "float32"), alpha], [("y", xs, "float32")])
    check_op(model, [rand(rng, xs, low=-3, high=3)], backend, **ELEMENTWISE)


def test_prelu_alpha_as_input(backend, rng):
    xs = (1, 3, 3, 4)
    model = single_op_model("PRELU", [("x", xs, "float32"), ("alpha", (4,), "float32")],
                            [("y", xs, "float32")])
    check_op(model, [rand(rng, xs, low=-3, high=3), rand(rng, (4,), low=-1, high=1)], backend,
             **ELEMENTWISE)


# ---- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR ------------------------------------------------
SIZES = {
    "up2x": ((2, 4, 5, 3), (8, 10)),
    "up_fractional": ((1, 3, 4, 2), (5, 7)),
    "down": ((1, 8, 10, 2), (3, 4)),
    "down_2x": ((1, 8, 8, 3), (4, 4)),
    "mixed": ((1, 4, 6, 1), (7, 3)),
    "to_1x1": ((1, 3, 4, 2), (1, 1)),
    "from_1x1": ((1, 1, 1, 2), (3, 2)),
}
MODES = {"none": (False, False), "align_corners": (True, False), "half_pixel": (False, True)}
NN_MODES = {**MODES, "both": (True, True)}   # nearest neighbour accepts both flags at once


def resize_model(op: str, xs: tuple[int, ...], size: tuple[int, int], mode: str) -> bytes:
    align, half = NN_MODES[mode]
    out = (xs[0], size[0], size[1], xs[3])
    return single_op_model(op, [("x", xs, "float32"), np.array(size, np.int32)],
                           [("y", out, "float32")], align_corners=align, half_pixel_centers=half)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("size", list(SIZES))
def test_resize_bilinear(backend, rng, size, mode):
    xs, hw = SIZES[size]
    model = resize_model("RESIZE_BILINEAR", xs, hw, mode)
    check_op(model, [rand(rng, xs, low=-5, high=5)], backend, rtol=1e-5, atol=1e-5)


def test_neg_resize_bilinear_align_corners_and_half_pixel(backend):
    """Refused at compile time, as the interpreter refuses it at prepare."""
    with pytest.raises(onert_py.CompileError, match="half_pixel_centers"):
        onert_py.Session(resize_model("RESIZE_BILINEAR", (1, 3, 3, 1), (5, 5), "both"),
                         backends=with_fallback(backend))


@pytest.mark.parametrize("mode", list(NN_MODES))
@pytest.mark.parametrize("size", list(SIZES))
def test_resize_nearest_neighbor(backend, rng, size, mode):
    xs, hw = SIZES[size]
    model = resize_model("RESIZE_NEAREST_NEIGHBOR", xs, hw, mode)
    check_op(model, [rand(rng, xs, low=-5, high=5)], backend)


@pytest.mark.parametrize("mode", list(NN_MODES))
@pytest.mark.parametrize("xs,hw", [((1, 3, 3, 1), (5, 5)), ((1, 2, 5, 1), (4, 9)),
                                   ((1, 5, 5, 1), (3, 3)), ((1, 4, 4, 1), (7, 7))])
def test_resize_nearest_neighbor_ties(backend, xs, hw, mode):
    """Sizes whose source coordinates land exactly on .5 (rounding ties)."""
    x = np.arange(np.prod(xs), dtype=np.float32).reshape(xs)
    check_op(resize_model("RESIZE_NEAREST_NEIGHBOR", xs, hw, mode), [x], backend)
