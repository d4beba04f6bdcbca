"""Quantized TRANSPOSE_CONV against the interpreter, bit-exact: int8 activations with per-channel
and per-tensor int8 weights, uint8 with uint8 weights (zero point != 0), int16x8 with int64
biases; SAME/VALID, strides 1-3, bias or not, fused activations, weights as a graph input and a
non-constant output_shape. Power-of-two multipliers make many exact ties, which pin down each
path's rounding (int8: vector halves-up on channel blocks of 8 and away-from-zero on the
`cout % 8` leftover channels; uint8: halves-up everywhere; int16: the int64 reference)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import ModelBuilder
from builders.quant import conv_filter, conv_input, qdict
from op_harness import check_runs
from quant_harness import check_qop, compile_error

I32 = np.int32

# activation (dtype, scale, zero point, per-channel weights)
FORMS = {
    "int8": ("int8", 0.05, -3, True),
    "int8pt": ("int8", 0.05, -3, False),
    "uint8": ("uint8", 0.05, 131, False),
    "int16": ("int16", 0.002, 0, True),
    "int16pt": ("int16", 0.002, 0, False),
}


def natural(size: int, k: int, stride: int, padding: str) -> int:
    return size * stride if padding == "SAME" else (size - 1) * stride + k


def tconv_model(form: str, xs: tuple, ws: tuple, stride=(1, 1), padding="SAME", act="NONE",
                bias=True, ties=False, seed=0, out_hw=None, const_shape=True, w_input=False,
                bias_dtype=None, bias_scale=None, w_quant=True, w_zp=None, per_channel=None):
    """A one-op quantized TRANSPOSE_CONV model, its inputs and the output shape."""
    rng = np.random.default_rng(seed)
    dt, xsc, xzp, pc = FORMS[form]
    per_channel = pc if per_channel is None else per_channel
    cout = ws[0]
    w, wzp, wsc = conv_filter(rng, dt, ws, cout, per_channel, ties, w_zp)
    taps = -(-ws[1] // stride[0]) * -(-ws[2] // stride[1]) * ws[3]
    x, ysc = conv_input(rng, xs, dt, xsc, xzp, wsc, taps, ties)
    oh, ow = out_hw or (natural(xs[1], ws[1], stride[0], padding),
                        natural(xs[2], ws[2], stride[1], padding))
    out = (xs[0], oh, ow, cout)
    b = ModelBuilder("tflite")
    inputs = []
    shape_in = b.add_const("shape", np.array(out, I32)) if const_shape \
        else b.add_input("shape", (4,), "int32")
    wq = qdict(wsc, wzp, 0 if per_channel else None) if w_quant else None
    wt = b.add_input("w", ws, dt if dt == "uint8" else "int8", quant=wq) if w_input \
        else b.add_const("w", w, quant=wq)
    xt = b.add_input("x", xs, dt, quant=qdict(xsc, xzp))
    ops_in = [shape_in, wt, xt]
    if bias:
        bdt = bias_dtype or ("int64" if dt == "int16" else "int32")
        bscale = (np.float64(np.float32(xsc)) * wsc.astype(np.float64)).astype(np.float32)
        bq = qdict(bscale if bias_scale is None else bias_scale, 0)
        ops_in.append(b.add_const("b", rng.integers(-3000, 3000, cout).astype(bdt), quant=bq))
    y = b.add_tensor("y", out if const_shape else (None,) * 4, dt,
                     quant=qdict(ysc, xzp + 7 if dt != "int16" else 0))
    b.add_op("TRANSPOSE_CONV", ops_in, [y], padding=padding, stride_h=stride[0],
             stride_w=stride[1], fused_activation_function=act)
    b.add_output(y)
    if not const_shape:
        inputs.append(np.array(out, I32))
    if w_input:
        inputs.append(w)
    inputs.append(x)
    return b.build(), inputs, out


# (input NHWC, weights OHWI, stride, padding, bias, activation, output HW or None)
CASES = {
    "same_s1": ((1, 5, 6, 3), (4, 3, 3, 3), (1, 1), "SAME", True, "NONE", None),
    "valid_s1": ((1, 5, 6, 5), (9, 3, 3, 5), (1, 1), "VALID", True, "RELU", None),
    "same_s2": ((1, 4, 5, 3), (17, 3, 3, 3), (2, 2), "SAME", True, "RELU6", None),
    "valid_s2": ((2, 4, 5, 3), (8, 3, 3, 3), (2, 2), "VALID", True, "NONE", None),
    "same_s2_k4": ((1, 3, 4, 6), (11, 4, 4, 6), (2, 2), "SAME", True, "RELU_N1_TO_1", None),
    "stride_3": ((1, 3, 3, 4), (5, 3, 3, 4), (3, 3), "VALID", True, "NONE", None),
    "stride_3_same": ((1, 3, 4, 4), (16, 3, 3, 4), (3, 3), "SAME", True, "NONE", None),
    "stride_1x3": ((1, 4, 3, 2), (3, 3, 2, 2), (1, 3), "SAME", True, "NONE", None),
    "stride_gt_kernel": ((1, 3, 4, 2), (6, 2, 2, 2), (3, 3), "VALID", True, "NONE", None),
    "no_bias_same": ((1, 5, 6, 3), (13, 3, 3, 3), (2, 2), "SAME", False, "NONE", None),
    "no_bias_valid": ((1, 5, 6, 3), (4, 3, 3, 3), (1, 1), "VALID", False, "RELU", None),
    "pointwise": ((1, 4, 4, 24), (20, 1, 1, 24), (1, 1), "VALID", True, "NONE", None),
    "odd_same_out": ((1, 4, 4, 2), (3, 3, 3, 2), (2, 2), "SAME", True, "NONE", (7, 7)),
    "valid_out_larger": ((1, 3, 3, 2), (3, 3, 3, 2), (2, 2), "VALID", True, "NONE", (8, 8)),
    "deep": ((1, 4, 4, 64), (19, 3, 3, 64), (2, 2), "SAME", True, "NONE", None),
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("case", list(CASES))
def test_transpose_conv(backend, form, case):
    xs, ws, stride, padding, bias, act, hw = CASES[case]
    model, inputs, _ = tconv_model(form, xs, ws, stride, padding, act, bias, out_hw=hw)
    check_qop(model, inputs, backend)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("xs,ws,stride", [
    ((1, 3, 4, 6), (8, 3, 3, 6), (2, 2)),
    ((1, 3, 4, 6), (5, 3, 3, 6), (2, 2)),
    ((2, 4, 3, 5), (21, 3, 3, 5), (1, 1)),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_rounding_ties(backend, form, xs, ws, stride, seed):
    """Power-of-two multipliers: many accumulators fall exactly halfway between two outputs."""
    model, inputs, _ = tconv_model(form, xs, ws, stride, ties=True, seed=seed)
    check_qop(model, inputs, backend)


@pytest.mark.parametrize("form", ["int8", "uint8", "int16"])
def test_weights_as_input(backend, form):
    model, inputs, _ = tconv_model(form, (1, 4, 4, 3), (11, 3, 3, 3), (2, 2), w_input=True)
    check_qop(model, inputs, backend)


@pytest.mark.parametrize("form", ["int8", "int16"])
def test_weight_zero_point_ignored(backend, form):
    """The int8 and int16 kernels assume symmetric weights: a zero point is ignored."""
    model, inputs, _ = tconv_model(form, (1, 4, 4, 3), (10, 3, 3, 3), (2, 2), w_zp=5)
    check_qop(model, inputs, backend)


@pytest.mark.parametrize("form", ["int8", "uint8", "int16"])
def test_dynamic_output_shape(backend, form):
    """output_shape is a graph input: the output is sized at every run."""
    model, inputs, out = tconv_model(form, (1, 4, 4, 2), (9, 3, 3, 2), (2, 2), const_shape=False)
    x = inputs[-1]
    runs = [[np.array([1, 8, 8, 9], I32), x], [np.array([1, 7, 7, 9], I32), x],
            [np.array([1, 8, 8, 9], I32), x]]
    check_runs(model, runs, backend)


def test_refused(backend):
    xs, ws = (1, 3, 3, 2), (4, 3, 3, 2)
    # no weight quantization (the interpreter fails in Prepare)
    model = tconv_model("int8", xs, ws, w_quant=False)[0]
    assert "no quantization" in compile_error(model, backend)
    # per-channel weights with uint8 (the interpreter accepts them only for int8/int16)
    msg = compile_error(tconv_model("uint8", xs, ws, per_channel=True)[0], backend)
    assert "per-tensor" in msg
    # uint8 bias scale far from input scale * weight scale (GetQuantizedConvolutionMultipler)
    assert "bias scale" in compile_error(tconv_model("uint8", xs, ws, bias_scale=0.5)[0], backend)
    # int16 with an int32 bias: the interpreter reads it as int64 (garbage)
    assert "int64" in compile_error(tconv_model("int16", xs, ws, bias_dtype="int32")[0], backend)
