"""CONV_2D (grouped too), DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL against the TFLite
interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from builders.single_op import conv_models, conv_out, depthwise_models
from op_harness import ACCUMULATE, BACKENDS, backend_or_skip, check_op, rand
from quant_harness import compile_error


# ---- CONV_2D ---------------------------------------------------------------------------------
# (input NHWC, filter OHWI, stride (h, w), dilation (h, w), padding, bias, activation)
CONV_CASES = {
    "same_s1": ((1, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", True, "NONE"),
    "valid_s1": ((1, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "VALID", True, "NONE"),
    "same_s2": ((1, 7, 8, 3), (4, 3, 3, 3), (2, 2), (1, 1), "SAME", True, "NONE"),
    "valid_s2": ((1, 9, 8, 3), (4, 3, 3, 3), (2, 2), (1, 1), "VALID", True, "NONE"),
    "stride_1x2": ((1, 6, 9, 2), (3, 3, 3, 2), (1, 2), (1, 1), "SAME", True, "NONE"),
    "kernel_3x2": ((1, 6, 7, 3), (5, 3, 2, 3), (1, 1), (1, 1), "SAME", True, "NONE"),
    "dilation2_same": ((1, 9, 9, 3), (4, 3, 3, 3), (1, 1), (2, 2), "SAME", True, "NONE"),
    "dilation2_valid": ((1, 9, 10, 3), (4, 3, 3, 3), (1, 1), (2, 2), "VALID", True, "NONE"),
    "dilation_2x1": ((1, 8, 8, 2), (3, 3, 3, 2), (1, 1), (2, 1), "SAME", True, "NONE"),
    "pointwise": ((1, 5, 6, 8), (16, 1, 1, 8), (1, 1), (1, 1), "VALID", True, "NONE"),
    "pointwise_s2": ((1, 6, 6, 8), (4, 1, 1, 8), (2, 2), (1, 1), "SAME", True, "NONE"),
    "no_bias": ((1, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", False, "NONE"),
    "relu": ((1, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", True, "RELU"),
    "relu6": ((1, 7, 8, 3), (4, 3, 3, 3), (2, 2), (1, 1), "VALID", True, "RELU6"),
    "relu_n1_to_1": ((1, 5, 5, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", True, "RELU_N1_TO_1"),
    "batch2": ((2, 7, 8, 3), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", True, "RELU"),
    "batch2_pointwise": ((2, 4, 4, 5), (3, 1, 1, 5), (1, 1), (1, 1), "SAME", False, "RELU6"),
    "kernel_5x5": ((1, 10, 10, 4), (8, 5, 5, 4), (2, 2), (1, 1), "SAME", True, "NONE"),
    # few input channels (acl_neon's direct convolution), rows wider than its pixel blocks
    "stem_s2_relu6": ((1, 16, 34, 3), (32, 3, 3, 3), (2, 2), (1, 1), "SAME", True, "RELU6"),
    "cin1_s1": ((1, 9, 30, 1), (8, 3, 3, 1), (1, 1), (1, 1), "SAME", True, "NONE"),
    "cin2_valid_s2_odd": ((1, 15, 31, 2), (6, 3, 3, 2), (2, 2), (1, 1), "VALID", True, "RELU6"),
    "cin4_dilation2": ((1, 11, 29, 4), (5, 3, 3, 4), (1, 1), (2, 2), "SAME", True, "NONE"),
    "cin3_kernel_7x7": ((1, 17, 33, 3), (12, 7, 7, 3), (2, 2), (1, 1), "SAME", False, "RELU"),
    "cin3_5x5_batch2": ((2, 12, 27, 3), (24, 5, 5, 3), (2, 2), (1, 1), "SAME", True, "RELU6"),
}


def check_conv2d(backend, rng, case: tuple) -> None:
    """One case of CONV_CASES / GROUPED_CASES against the interpreter."""
    xs, ws, (sh, sw), (dh, dw), padding, has_bias, act = case
    w = rand(rng, ws)
    bias = rand(rng, ws[:1]) if has_bias else None
    out = (xs[0], conv_out(xs[1], ws[1], sh, dh, padding),
           conv_out(xs[2], ws[2], sw, dw, padding), ws[0])
    opts = dict(padding=padding, stride_h=sh, stride_w=sw, dilation_h_factor=dh,
                dilation_w_factor=dw, fused_activation_function=act)
    model, ref = conv_models("CONV_2D", xs, w, bias, out, opts)
    check_op(model, [rand(rng, xs)], backend, reference=ref, **ACCUMULATE)


@pytest.mark.parametrize("case", list(CONV_CASES))
def test_conv2d(backend, rng, case):
    check_conv2d(backend, rng, CONV_CASES[case])


@pytest.mark.parametrize("xs,ws", [((1, 6, 6, 3), (2, 3, 3, 3)),
                                   ((1, 6, 6, 4), (6, 3, 3, 2))])      # 2 groups
def test_conv2d_filter_as_input(backend, rng, xs, ws):
    """A filter fed at run time (not a constant)."""
    model = single_op_model("CONV_2D", [("x", xs, "float32"), ("w", ws, "float32"),
                                        rand(rng, ws[:1])],
                            [("y", xs[:3] + ws[:1], "float32")], padding="SAME")
    check_op(model, [rand(rng, xs), rand(rng, ws)], backend, **ACCUMULATE)


# grouped: the filter's input depth is the input's depth / groups
# (input NHWC, filter OHWI, stride, dilation, padding, bias, activation)
GROUPED_CASES = {
    "g2_same": ((1, 7, 8, 6), (4, 3, 3, 3), (1, 1), (1, 1), "SAME", True, "NONE"),
    "g4_valid_s2": ((2, 9, 8, 8), (12, 3, 3, 2), (2, 2), (1, 1), "VALID", True, "RELU"),
    "g3_dilation2": ((1, 9, 9, 6), (6, 3, 3, 2), (1, 1), (2, 2), "SAME", True, "RELU6"),
    "g2_pointwise": ((1, 5, 6, 8), (6, 1, 1, 4), (1, 1), (1, 1), "VALID", False, "NONE"),
    "g8_per_channel": ((1, 6, 6, 8), (16, 3, 3, 1), (1, 2), (1, 1), "SAME", True, "NONE"),
    "g2_kernel_5x3": ((1, 10, 9, 4), (8, 5, 3, 2), (2, 1), (1, 1), "SAME", True, "NONE"),
    "g2_chunked": ((1, 130, 130, 8), (64, 3, 3, 4), (1, 1), (1, 1), "SAME", True, "NONE"),
}


@pytest.mark.parametrize("case", list(GROUPED_CASES))
def test_conv2d_grouped(backend, rng, case):
    """TFLite runs grouped convolutions on its reference kernel; every backend other than cpu
    refuses them (ungrouped kernels), so they run on cpu and those backends skip here."""
    check_conv2d(backend, rng, GROUPED_CASES[case])


@pytest.mark.parametrize("name", [b for b in BACKENDS if b != "cpu"])
def test_conv2d_grouped_falls_back_to_cpu(rng, name):
    """A backend with ungrouped kernels only refuses a grouped CONV_2D with its reason."""
    backend_or_skip(name)
    model = single_op_model("CONV_2D", [("x", (1, 5, 5, 6), "float32"), rand(rng, (4, 3, 3, 3)),
                                        rand(rng, (4,))],
                            [("y", (1, 5, 5, 4), "float32")], padding="SAME")
    with onert_py.Session(model, backends=[name, "cpu"]) as session:
        (conv,) = [op for op in session.placement().ops if op.type == "Conv2D"]
    assert conv.backend == "cpu"
    assert "ungrouped convolutions only" in conv.refusals[name]


@pytest.mark.parametrize("xs,ws,match", [
    ((1, 5, 5, 6), (4, 3, 3, 4), "not a multiple of the filter's input depth 4"),
    ((1, 5, 5, 6), (5, 3, 3, 2), "5 output channels are not a multiple of the 3 groups"),
])
def test_conv2d_invalid_groups_refused(backend, rng, xs, ws, match):
    model = single_op_model("CONV_2D", [("x", xs, "float32"), rand(rng, ws), rand(rng, ws[:1])],
                            [("y", xs[:3] + ws[:1], "float32")], padding="SAME")
    assert match in compile_error(model, backend)


# ---- DEPTHWISE_CONV_2D -----------------------------------------------------------------------
# (input NHWC, kernel (kh, kw), multiplier, stride, dilation, padding, bias, activation)
DW_CASES = {
    "m1_same": ((1, 7, 8, 4), (3, 3), 1, 1, 1, "SAME", True, "NONE"),
    "m1_valid": ((1, 7, 8, 4), (3, 3), 1, 1, 1, "VALID", True, "NONE"),
    "m2_same": ((1, 7, 8, 3), (3, 3), 2, 1, 1, "SAME", True, "NONE"),
    "m2_valid_s2": ((1, 9, 8, 3), (3, 3), 2, 2, 1, "VALID", True, "NONE"),
    "m1_s2_same": ((1, 8, 9, 4), (3, 3), 1, 2, 1, "SAME", True, "RELU6"),
    "m3_single_channel": ((1, 6, 6, 1), (3, 3), 3, 1, 1, "SAME", True, "NONE"),
    "dilation2_same": ((1, 9, 9, 4), (3, 3), 1, 1, 2, "SAME", True, "NONE"),
    "dilation2_valid_m2": ((1, 10, 9, 2), (3, 3), 2, 1, 2, "VALID", True, "NONE"),
    "kernel_5x3": ((1, 8, 8, 4), (5, 3), 1, 1, 1, "SAME", True, "NONE"),
    "no_bias_relu": ((1, 6, 7, 4), (3, 3), 1, 1, 1, "SAME", False, "RELU"),
    "batch2": ((2, 6, 6, 4), (3, 3), 2, 2, 1, "SAME", True, "RELU"),
    "row_bands": ((1, 72, 64, 32), (3, 3), 1, 1, 1, "SAME", True, "NONE"),
    "row_bands_s2_m2": ((1, 100, 64, 16), (3, 3), 2, 2, 1, "SAME", True, "RELU6"),
}


@pytest.mark.parametrize("case", list(DW_CASES))
def test_depthwise_conv2d(backend, rng, case):
    xs, kernel, mult, s, d, padding, has_bias, act = DW_CASES[case]
    model, ref = depthwise_models(rng, xs, kernel, mult, (s, s), (d, d), padding, has_bias, act)
    check_op(model, [rand(rng, xs)], backend, reference=ref, **ACCUMULATE)


def test_depthwise_conv2d_filter_as_input(backend, rng):
    """A filter fed at run time (not a constant)."""
    model = single_op_model("DEPTHWISE_CONV_2D", [("x", (1, 6, 6, 3), "float32"),
                                                  ("w", (1, 3, 3, 3), "float32"), rand(rng, (3,))],
                            [("y", (1, 6, 6, 3), "float32")], padding="SAME", depth_multiplier=1)
    check_op(model, [rand(rng, (1, 6, 6, 3)), rand(rng, (1, 3, 3, 3))], backend, **ACCUMULATE)


# ---- FULLY_CONNECTED -------------------------------------------------------------------------
# (input shape, units, bias, keep_num_dims, activation, output shape)
FC_CASES = {
    "2d": ((2, 6), 5, True, False, "NONE", (2, 5)),
    "2d_no_bias": ((2, 6), 5, False, False, "NONE", (2, 5)),
    "2d_relu": ((3, 8), 4, True, False, "RELU", (3, 4)),
    "2d_relu6": ((3, 8), 4, True, False, "RELU6", (3, 4)),
    "3d_keep_dims": ((2, 3, 6), 5, True, True, "NONE", (2, 3, 5)),
    "3d_flatten": ((2, 3, 6), 5, True, False, "NONE", (6, 5)),
    "3d_keep_dims_no_bias": ((2, 3, 6), 4, False, True, "NONE", (2, 3, 4)),
    "4d_flatten": ((1, 2, 2, 6), 3, True, False, "NONE", (4, 3)),
    "rows_regrouped": ((3, 4), 2, True, False, "NONE", (2, 2)),
    "wide": ((1, 256), 32, True, False, "NONE", (1, 32)),
}


@pytest.mark.parametrize("case", list(FC_CASES))
def test_fully_connected(backend, rng, case):
    xs, units, has_bias, keep, act, out = FC_CASES[case]
    k = xs[-1] if keep or case != "rows_regrouped" else 6
    w = rand(rng, (units, k))
    bias = rand(rng, (units,)) if has_bias else None
    model = single_op_model("FULLY_CONNECTED", [("x", xs, "float32"), w, bias],
                            [("y", out, "float32")], keep_num_dims=keep,
                            fused_activation_function=act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)


def test_fully_connected_weights_as_input(backend, rng):
    model = single_op_model("FULLY_CONNECTED", [("x", (2, 6), "float32"),
                                                ("w", (3, 6), "float32"), None],
                            [("y", (2, 3), "float32")])
    check_op(model, [rand(rng, (2, 6)), rand(rng, (3, 6))], backend, **ACCUMULATE)


# ---- BATCH_MATMUL ----------------------------------------------------------------------------
# (lhs shape, rhs shape, adj_x, adj_y)
BMM_CASES = {
    "2d": ((3, 4), (4, 5), False, False),
    "3d": ((2, 3, 4), (2, 4, 5), False, False),
    "adj_x": ((2, 4, 3), (2, 4, 5), True, False),
    "adj_y": ((2, 3, 4), (2, 5, 4), False, True),
    "adj_xy": ((2, 4, 3), (2, 5, 4), True, True),
    "broadcast_lhs_batch": ((1, 3, 4), (3, 4, 5), False, False),
    "broadcast_rank": ((2, 1, 3, 4), (3, 4, 5), False, False),
    "broadcast_both": ((2, 1, 3, 4), (1, 3, 2, 4), False, True),
    "rhs_2d": ((2, 3, 3, 4), (4, 6), False, False),
}


@pytest.mark.parametrize("case", list(BMM_CASES))
def test_batch_matmul(backend, rng, case):
    a_s, b_s, adj_x, adj_y = BMM_CASES[case]
    a, b = rand(rng, a_s), rand(rng, b_s)
    out = np.matmul(np.swapaxes(a, -1, -2) if adj_x else a, np.swapaxes(b, -1, -2) if adj_y else b)
    model = single_op_model("BATCH_MATMUL", [("a", a_s, "float32"), ("b", b_s, "float32")],
                            [("y", out.shape, "float32")], adj_x=adj_x, adj_y=adj_y)
    check_op(model, [a, b], backend, **ACCUMULATE)


def test_batch_matmul_const_rhs(backend, rng):
    w = rand(rng, (4, 5))
    model = single_op_model("BATCH_MATMUL", [("a", (2, 3, 4), "float32"), w],
                            [("y", (2, 3, 5), "float32")])
    check_op(model, [rand(rng, (2, 3, 4))], backend, **ACCUMULATE)
