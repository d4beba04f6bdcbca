"""Quantized CONV_2D (grouped too) and DEPTHWISE_CONV_2D against the interpreter, bit-exact: int8
activations with per-channel and per-tensor int8 weights, uint8 with uint8 weights (zero point
!= 0), int16x8 with int64 biases. Random scales exercise general multipliers; power-of-two scales
make many exact ties, which pin down each path's rounding (vector halves-up / reference
away-from-zero: grouped convolutions take the reference one on every channel)."""
from __future__ import annotations

import pytest

from builders.qconv import CONV, DEPTHWISE, FORMS, GROUPED, qconv_model
from quant_harness import check_qop, compile_error


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("case", list(CONV))
def test_conv2d(backend, form, case):
    xs, ws, stride, dil, padding, act = CONV[case]
    model, x = qconv_model("CONV_2D", form, xs, ws, stride, dil, padding, act)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("case", list(GROUPED))
@pytest.mark.parametrize("ties", [False, True])
def test_conv2d_grouped(backend, form, case, ties):
    """Grouped: on cpu only (the other backends' kernels are ungrouped: they skip here)."""
    xs, ws, stride, dil, padding, act = GROUPED[case]
    model, x = qconv_model("CONV_2D", form, xs, ws, stride, dil, padding, act, ties=ties,
                           seed=len(case))
    check_qop(model, [x], backend)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("case", list(DEPTHWISE))
def test_depthwise_conv2d(backend, form, case):
    xs, ws, mult, stride, dil, padding, act = DEPTHWISE[case]
    model, x = qconv_model("DEPTHWISE_CONV_2D", form, xs, ws, stride, dil, padding, act, mult)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("op,xs,ws,mult", [
    ("CONV_2D", (1, 6, 7, 5), (21, 3, 3, 5), 1),
    ("CONV_2D", (1, 5, 5, 16), (8, 1, 1, 16), 1),
    ("DEPTHWISE_CONV_2D", (1, 6, 7, 21), (1, 3, 3, 21), 1),
    ("DEPTHWISE_CONV_2D", (1, 5, 4, 3), (1, 3, 3, 12), 4),
    ("DEPTHWISE_CONV_2D", (1, 7, 6, 24), (1, 3, 3, 24), 1),   # int8: no scalar-tail channels
    ("CONV_2D", (1, 9, 10, 8), (40, 1, 1, 8), 1),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_rounding_ties(backend, form, op, xs, ws, mult, seed):
    """Power-of-two multipliers: many accumulators fall exactly halfway between two outputs."""
    model, x = qconv_model(op, form, xs, ws, mult=mult, ties=True, seed=seed)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("op,ws", [("CONV_2D", (4, 3, 3, 3)), ("DEPTHWISE_CONV_2D", (1, 3, 3, 3))])
def test_refused(backend, op, ws):
    xs = (1, 5, 5, 3)
    assert "needs a bias" in compile_error(qconv_model(op, "int8", xs, ws, bias=False)[0], backend)
    # int8: the interpreter ignores a bias scale that is not input * filter scale, and so do we
    model, x = qconv_model(op, "int8", xs, ws, bias_scale=1.0)
    check_qop(model, [x], backend)
    msg = compile_error(qconv_model(op, "uint8", xs, ws, bias_scale=0.5)[0], backend)
    assert "bias scale" in msg
    assert "zero points 0" in compile_error(qconv_model(op, "int8", xs, ws, wzp=3)[0], backend)
    msg = compile_error(qconv_model(op, "int16", xs, ws, bias_dtype="int32")[0], backend)
    assert "int64 bias" in msg


@pytest.mark.parametrize("form", ["int8", "uint8"])
def test_grouped_invalid_refused(backend, form):
    model = qconv_model("CONV_2D", form, (1, 5, 5, 6), (4, 3, 3, 4))[0]
    assert "not a multiple of the filter's input depth" in compile_error(model, backend)
