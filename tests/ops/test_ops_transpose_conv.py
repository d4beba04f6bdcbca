"""TRANSPOSE_CONV (float32) against the TFLite interpreter: SAME/VALID, strides, bias or not,
fused activation, batches, weights as a graph input, and a non-constant output_shape (the
output is then dynamic)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder, single_op_model
from op_harness import ACCUMULATE, check_op, check_runs, rand

I32 = np.int32


def natural(size: int, k: int, stride: int, padding: str) -> int:
    """The output size TensorFlow gives a transposed convolution of an input of `size`."""
    return size * stride if padding == "SAME" else (size - 1) * stride + k


# (input NHWC, weights OHWI, stride (h, w), padding, bias, activation, output HW or None)
CASES = {
    "same_s1": ((1, 5, 6, 3), (4, 3, 3, 3), (1, 1), "SAME", True, "NONE", None),
    "valid_s1": ((1, 5, 6, 3), (4, 3, 3, 3), (1, 1), "VALID", True, "NONE", None),
    "same_s2": ((1, 4, 5, 3), (4, 3, 3, 3), (2, 2), "SAME", True, "NONE", None),
    "valid_s2": ((1, 4, 5, 3), (2, 3, 3, 3), (2, 2), "VALID", True, "NONE", None),
    "same_s2_k2": ((1, 4, 4, 8), (6, 2, 2, 8), (2, 2), "SAME", True, "NONE", None),
    "same_s2_k4": ((1, 3, 4, 2), (3, 4, 4, 2), (2, 2), "SAME", True, "NONE", None),
    "stride_1x2": ((1, 4, 5, 2), (3, 3, 3, 2), (1, 2), "SAME", True, "NONE", None),
    "stride_3": ((1, 3, 3, 2), (3, 3, 3, 2), (3, 3), "VALID", True, "NONE", None),
    "kernel_3x2": ((1, 4, 5, 3), (5, 3, 2, 3), (2, 1), "SAME", True, "NONE", None),
    "stride_gt_kernel": ((1, 3, 4, 2), (2, 2, 2, 2), (3, 3), "VALID", True, "NONE", None),
    "no_bias_same": ((1, 5, 6, 3), (4, 3, 3, 3), (2, 2), "SAME", False, "NONE", None),
    "no_bias_valid": ((1, 5, 6, 3), (4, 3, 3, 3), (1, 1), "VALID", False, "NONE", None),
    "relu": ((1, 4, 5, 3), (4, 3, 3, 3), (2, 2), "SAME", True, "RELU", None),
    "relu6": ((1, 4, 5, 3), (4, 3, 3, 3), (2, 2), "VALID", True, "RELU6", None),
    "batch2": ((2, 4, 3, 3), (4, 3, 3, 3), (2, 2), "SAME", True, "NONE", None),
    "pointwise": ((1, 4, 4, 6), (5, 1, 1, 6), (1, 1), "VALID", True, "NONE", None),
    "odd_same_out": ((1, 4, 4, 2), (3, 3, 3, 2), (2, 2), "SAME", True, "NONE", (7, 7)),
    "valid_out_larger": ((1, 3, 3, 2), (3, 3, 3, 2), (2, 2), "VALID", True, "NONE", (8, 8)),
}


def tconv_model(xs, w, bias, out, sh, sw, padding, act="NONE", const_shape=True):
    shape_in = np.array(out, I32) if const_shape else ("output_shape", (4,), "int32")
    return single_op_model("TRANSPOSE_CONV", [shape_in, w, ("x", xs, "float32"), bias],
                           [("y", out if const_shape else (None,) * 4, "float32")],
                           padding=padding, stride_h=sh, stride_w=sw,
                           fused_activation_function=act)


@pytest.mark.parametrize("case", list(CASES))
def test_transpose_conv(backend, rng, case):
    xs, ws, (sh, sw), padding, has_bias, act, hw = CASES[case]
    w = rand(rng, ws)
    bias = rand(rng, ws[:1]) if has_bias else None
    oh, ow = hw or (natural(xs[1], ws[1], sh, padding), natural(xs[2], ws[2], sw, padding))
    out = (xs[0], oh, ow, ws[0])
    model = tconv_model(xs, w, bias, out, sh, sw, padding, act)
    check_op(model, [rand(rng, xs)], backend, **ACCUMULATE)


def test_transpose_conv_weights_as_input(backend, rng):
    xs, ws, out = (1, 4, 4, 3), (2, 3, 3, 3), (1, 8, 8, 2)
    model = single_op_model("TRANSPOSE_CONV", [np.array(out, I32), ("w", ws, "float32"),
                                               ("x", xs, "float32"), rand(rng, (2,))],
                            [("y", out, "float32")], padding="SAME", stride_h=2, stride_w=2)
    check_op(model, [rand(rng, ws), rand(rng, xs)], backend, **ACCUMULATE)


def test_transpose_conv_dynamic_output_shape(backend, rng):
    """output_shape is a graph input: the output is dynamic, sized at every run."""
    ws = (3, 3, 3, 2)
    model = tconv_model((1, 4, 4, 2), rand(rng, ws), rand(rng, ws[:1]), None, 2, 2, "SAME",
                        const_shape=False)
    runs = [[np.array([1, 8, 8, 3], I32), rand(rng, (1, 4, 4, 2))],
            [np.array([1, 7, 7, 3], I32), rand(rng, (1, 4, 4, 2))],
            [np.array([1, 8, 8, 3], I32), rand(rng, (1, 4, 4, 2))]]
    check_runs(model, runs, backend, **ACCUMULATE)


def test_transpose_conv_dynamic_output_is_dynamic(rng):
    ws = (3, 3, 3, 2)
    model = tconv_model((1, 4, 4, 2), rand(rng, ws), None, None, 2, 2, "SAME", const_shape=False)
    with onert_py.Session(model, backends="cpu") as sess:
        (y,) = sess.run([np.array([1, 8, 8, 3], I32), rand(rng, (1, 4, 4, 2))])
        assert y.shape == (1, 8, 8, 3)
        with pytest.raises(onert_py.ExecutionError, match="output_shape channels"):
            sess.run([np.array([1, 8, 8, 4], I32), rand(rng, (1, 4, 4, 2))])


def test_transpose_conv_resized_input(backend, rng):
    """A resized input keeps the constant output_shape: the result is still the interpreter's."""
    b = ModelBuilder()
    x = b.add_input("x", (1, None, None, 2))
    s = b.add_input("s", (4,), "int32")
    y = b.add_tensor("y", (None,) * 4)
    b.add_op("TRANSPOSE_CONV", [s, b.add_const("w", rand(rng, (3, 3, 3, 2))), x], [y],
             padding="VALID", stride_h=2, stride_w=2)
    b.add_output(y)
    runs = [[rand(rng, (1, 3, 3, 2)), np.array([1, 7, 7, 3], I32)],
            [rand(rng, (1, 5, 4, 2)), np.array([1, 11, 9, 3], I32)]]
    check_runs(b.build(), runs, backend, **ACCUMULATE)


def test_transpose_conv_bad_output_shape_is_compile_error(rng):
    model = tconv_model((1, 4, 4, 2), rand(rng, (3, 3, 3, 2)), None, (1, 8, 8, 5), 2, 2, "SAME")
    with pytest.raises(onert_py.CompileError, match="output_shape channels 5"):
        onert_py.Session(model, backends="cpu")
