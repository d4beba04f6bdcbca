"""Quantized CONV_2D / DEPTHWISE_CONV_2D on the raw input (QConvBase.plan_raw_input): the GEMM
accumulates x itself, x_zp * sum(w) is folded into the bias, and padded taps hold x_zp. Checks
that the cpu kernels take that path where the float64 rescale allows it (and not for int16),
and that it stays bit-exact with the interpreter with extreme input zero points and padding."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.qconv import FORMS, qconv_model
from op_harness import kernels
from quant_harness import check_qop

EXTRA = {
    "int8_zp_min": ("int8", 0.04, -128, True),
    "int8_zp_max": ("int8", 0.04, 120, True),
    "uint8_zp_high": ("uint8", 0.04, 200, False),
    "uint8_zp_0": ("uint8", 0.04, 0, False),
}

CASES = {
    "conv_same_3x3": ("CONV_2D", (1, 7, 9, 5), (6, 3, 3, 5), 1, (1, 1), "SAME", "RELU6"),
    "conv_same_s2": ("CONV_2D", (2, 9, 8, 3), (16, 3, 3, 3), 1, (2, 2), "SAME", "NONE"),
    "conv_pointwise": ("CONV_2D", (1, 6, 5, 24), (40, 1, 1, 24), 1, (1, 1), "VALID", "NONE"),
    "dw_same_m2": ("DEPTHWISE_CONV_2D", (1, 8, 7, 8), (1, 3, 3, 16), 2, (1, 1), "SAME", "NONE"),
    "dw_same_s2": ("DEPTHWISE_CONV_2D", (2, 9, 9, 16), (1, 3, 3, 16), 1, (2, 2), "SAME", "RELU"),
}


@pytest.fixture
def forms(monkeypatch):
    for k, v in EXTRA.items():
        monkeypatch.setitem(FORMS, k, v)


def conv_kernels(model: bytes) -> tuple:
    """(the session, kept alive: closing it releases its kernels' state; its conv kernels)"""
    s = onert_py.Session(model, backends="cpu")
    return s, [k for k in kernels(s)
               if type(k).__name__ in ("QConv2DLayer", "QDepthwiseConv2DLayer")]


@pytest.mark.parametrize("form", list(EXTRA))
@pytest.mark.parametrize("case", list(CASES))
def test_raw_input_exact(forms, form, case):
    op, xs, ws, mult, stride, padding, act = CASES[case]
    model, x = qconv_model(op, form, xs, ws, stride, (1, 1), padding, act, mult, seed=3)
    _, (k,) = conv_kernels(model)
    # uint8 depthwise rescales every channel with the reference rounding (no float64 form);
    # int8 depthwise keeps it on cout % 8 channels: none here (16 channels)
    expect = not (op == "DEPTHWISE_CONV_2D" and form.startswith("uint8"))
    assert k.raw == expect and (k.f64 is not None) == expect
    check_qop(model, [x])
    # the interpreter's input range ends, where x - x_zp is largest
    lo, hi = np.iinfo(x.dtype).min, np.iinfo(x.dtype).max
    check_qop(model, [np.where(np.arange(x.size).reshape(x.shape) % 3 == 0, lo, hi)
                      .astype(x.dtype)])


def test_int16_and_tail_channels_keep_shifted_input():
    model, _ = qconv_model("CONV_2D", "int16", (1, 5, 5, 3), (4, 3, 3, 3))
    _, (k,) = conv_kernels(model)
    assert not k.raw
    # int8 depthwise with scalar-tail channels (cout % 8 != 0): no float64 rescale, no raw input
    model, x = qconv_model("DEPTHWISE_CONV_2D", "int8", (1, 6, 6, 5), (1, 3, 3, 5))
    _, (k,) = conv_kernels(model)
    assert not k.raw and k.f64 is None
    check_qop(model, [x])
