"""CONV_3D and CONV_3D_TRANSPOSE (float32, the only type TFLite's kernels take) against the TFLite
interpreter: SAME/VALID, strides and dilations per axis, bias or not, fused clamps, batches, the
filter as a graph input, a non-constant output_shape (a dynamic output), and the forms the
interpreter refuses."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.quant import qdict
from builders.single_op import conv_out
from op_harness import ACCUMULATE, check_op, check_runs, rand
from oracle import tflite_run
from quant_harness import compile_error

I32 = np.int32


def options(stride, dilation, padding, act):
    return dict(padding=padding, stride_d=stride[0], stride_h=stride[1], stride_w=stride[2],
                dilation_d_factor=dilation[0], dilation_h_factor=dilation[1],
                dilation_w_factor=dilation[2], fused_activation_function=act)


# ---- CONV_3D ---------------------------------------------------------------------------------
# (input NDHWC, filter [KD, KH, KW, I, O], stride (d, h, w), dilation (d, h, w), padding, bias,
#  activation)
CONV3D_CASES = {
    "same": ((1, 4, 5, 6, 2), (2, 3, 3, 2, 3), (1, 1, 1), (1, 1, 1), "SAME", True, "NONE"),
    "valid": ((1, 5, 6, 5, 3), (3, 3, 2, 3, 4), (1, 1, 1), (1, 1, 1), "VALID", True, "NONE"),
    "strides": ((1, 6, 7, 8, 2), (3, 3, 3, 2, 4), (2, 1, 2), (1, 1, 1), "SAME", True, "RELU"),
    "dilations": ((1, 7, 6, 7, 2), (2, 3, 2, 2, 3), (1, 1, 1), (2, 1, 3), "VALID", True, "NONE"),
    "strides_dilations_same": ((2, 6, 6, 6, 3), (3, 2, 3, 3, 2), (2, 2, 1), (1, 2, 2), "SAME",
                               True, "RELU6"),
    "no_bias": ((1, 4, 4, 4, 2), (2, 2, 2, 2, 3), (1, 1, 1), (1, 1, 1), "SAME", False,
                "RELU_N1_TO_1"),
    "pointwise": ((1, 3, 4, 5, 8), (1, 1, 1, 8, 6), (1, 1, 1), (1, 1, 1), "VALID", True, "NONE"),
    "tanh_ignored": ((1, 3, 4, 4, 2), (2, 2, 2, 2, 2), (1, 1, 1), (1, 1, 1), "SAME", True,
                     "TANH"),
}


def conv3d_model(xs, w, bias, stride, dilation, padding, act, filter_input=False):
    out = (xs[0], *(conv_out(xs[1 + i], w.shape[i], stride[i], dilation[i], padding)
                    for i in range(3)), w.shape[4])
    filt = ("w", w.shape, "float32") if filter_input else w
    return single_op_model("CONV_3D", [("x", xs, "float32"), filt, bias],
                           [("y", out, "float32")], **options(stride, dilation, padding, act))


@pytest.mark.parametrize("case", list(CONV3D_CASES))
def test_conv3d(backend, rng, case):
    xs, ws, stride, dilation, padding, has_bias, act = CONV3D_CASES[case]
    w = rand(rng, ws)
    bias = rand(rng, ws[4:]) if has_bias else None
    model = conv3d_model(xs, w, bias, stride, dilation, padding, act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)


def test_conv3d_filter_as_input(backend, rng):
    xs, ws = (1, 4, 5, 4, 2), (2, 3, 2, 2, 3)
    model = conv3d_model(xs, rand(rng, ws), rand(rng, ws[4:]), (1, 2, 1), (1, 1, 1), "SAME",
                         "NONE", filter_input=True)
    check_op(model, [rand(rng, xs), rand(rng, ws)], backend, **ACCUMULATE)


def test_conv3d_refused(backend, rng):
    xs = (1, 4, 4, 4, 4)
    # input channels other than the filter's (TFLite has no grouped CONV_3D)
    model = single_op_model("CONV_3D", [("x", xs, "float32"), rand(rng, (2, 2, 2, 2, 3))],
                            [("y", (1, 4, 4, 4, 3), "float32")], padding="SAME")
    assert "input channels 4 differ from the filter's 2" in compile_error(model, backend)
    # int8: the interpreter refuses quantized CONV_3D, and so do we
    model = single_op_model("CONV_3D", [("x", xs, "int8", qdict(0.1, 0)),
                                        np.ones((2, 2, 2, 4, 3), np.int8)],
                            [("y", (1, 4, 4, 4, 3), "int8", qdict(0.1, 0))], padding="SAME")
    with pytest.raises(Exception, match="FLOAT32"):
        tflite_run(model, [np.zeros(xs, np.int8)])
    assert "Conv3D supports float32" in compile_error(model, backend)


# ---- CONV_3D_TRANSPOSE -----------------------------------------------------------------------
def natural(size: int, k: int, stride: int, dilation: int, padding: str) -> int:
    """An output size whose forward convolution gives back `size`."""
    return size * stride if padding == "SAME" else (size - 1) * stride + (k - 1) * dilation + 1


# (input NDHWC, filter [KD, KH, KW, O, I], stride, dilation, padding, bias, activation,
#  output DHW or None for `natural`)
TRANSPOSE_CASES = {
    "same_s1": ((1, 3, 4, 4, 2), (2, 3, 3, 3, 2), (1, 1, 1), (1, 1, 1), "SAME", True, "NONE",
                None),
    "valid_s1": ((1, 3, 4, 3, 2), (3, 2, 3, 4, 2), (1, 1, 1), (1, 1, 1), "VALID", True, "NONE",
                 None),
    "same_s2": ((1, 3, 3, 4, 3), (3, 3, 3, 2, 3), (2, 2, 2), (1, 1, 1), "SAME", True, "RELU",
                None),
    "valid_strides": ((1, 3, 4, 3, 2), (3, 3, 2, 2, 2), (2, 2, 1), (1, 1, 1), "VALID", True,
                      "RELU6", None),
    "dilations": ((2, 3, 3, 4, 3), (3, 3, 3, 4, 3), (2, 1, 2), (1, 2, 1), "VALID", True, "NONE",
                  None),
    "same_dilated_s2": ((1, 3, 3, 3, 2), (3, 3, 3, 2, 2), (2, 2, 2), (2, 1, 1), "SAME", True,
                        "NONE", None),
    "no_bias": ((1, 2, 3, 3, 4), (2, 2, 2, 3, 4), (2, 2, 2), (1, 1, 1), "SAME", False,
                "RELU_N1_TO_1", None),
    "odd_same_out": ((1, 3, 3, 3, 2), (3, 3, 3, 2, 2), (2, 2, 2), (1, 1, 1), "SAME", True,
                     "NONE", (5, 6, 5)),
    "stride_gt_kernel": ((1, 2, 3, 2, 2), (2, 2, 2, 3, 2), (3, 3, 3), (1, 1, 1), "VALID", True,
                         "NONE", (5, 8, 6)),
}


def transpose_model(xs, w, bias, out, stride, dilation, padding, act, const_shape=True,
                    filter_input=False):
    shape_in = np.array(out, I32) if const_shape else ("output_shape", (5,), "int32")
    filt = ("w", w.shape, "float32") if filter_input else w
    return single_op_model("CONV_3D_TRANSPOSE", [shape_in, filt, ("x", xs, "float32"), bias],
                           [("y", out if const_shape else (None,) * 5, "float32")],
                           **options(stride, dilation, padding, act))


@pytest.mark.parametrize("case", list(TRANSPOSE_CASES))
def test_conv3d_transpose(backend, rng, case):
    xs, ws, stride, dilation, padding, has_bias, act, dhw = TRANSPOSE_CASES[case]
    w = rand(rng, ws)
    bias = rand(rng, ws[3:4]) if has_bias else None
    dhw = dhw or tuple(natural(xs[1 + i], ws[i], stride[i], dilation[i], padding)
                       for i in range(3))
    out = (xs[0], *dhw, ws[3])
    model = transpose_model(xs, w, bias, out, stride, dilation, padding, act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)


def test_conv3d_transpose_filter_as_input(backend, rng):
    xs, ws, out = (1, 2, 3, 3, 2), (3, 3, 3, 2, 2), (1, 4, 6, 6, 2)
    model = transpose_model(xs, rand(rng, ws), rand(rng, (2,)), out, (2, 2, 2), (1, 1, 1),
                            "SAME", "NONE", filter_input=True)
    check_op(model, [rand(rng, ws), rand(rng, xs)], backend, **ACCUMULATE)


def test_conv3d_transpose_dynamic_output_shape(backend, rng):
    """output_shape is a graph input: the output is dynamic, sized at every run."""
    ws, xs = (3, 3, 3, 2, 2), (1, 2, 3, 3, 2)
    model = transpose_model(xs, rand(rng, ws), rand(rng, (2,)), None, (2, 2, 2), (1, 1, 1),
                            "SAME", "NONE", const_shape=False)
    runs = [[np.array([1, 4, 6, 6, 2], I32), rand(rng, xs)],
            [np.array([1, 3, 5, 6, 2], I32), rand(rng, xs)],
            [np.array([1, 4, 6, 5, 2], I32), rand(rng, xs)]]
    check_runs(model, runs, backend, **ACCUMULATE)


@pytest.mark.parametrize("out,match", [
    ((1, 5, 6, 6, 2), "gives (3, 3, 3), not the input's (2, 3, 3)"),
    ((1, 4, 6, 6, 4), "output_shape channels 4 differ from the filter's 2"),
    ((2, 4, 6, 6, 2), "output_shape batch 2 differs from the input's 1"),
])
def test_conv3d_transpose_refused(backend, rng, out, match):
    model = transpose_model((1, 2, 3, 3, 2), rand(rng, (3, 3, 3, 2, 2)), None, out, (2, 2, 2),
                            (1, 1, 1), "SAME", "NONE")
    assert match in compile_error(model, backend)
