"""Quantized RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR (int8/uint8/int16) and L2_NORMALIZATION
(int8/uint8) against the interpreter, bit-exact."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import single_op_model
from builders.quant import QTYPES, qspec
from op_harness import with_fallback
from quant_harness import check_qop, qrand

DTYPES = ["int8", "uint8", "int16"]
# name: (input NHWC, output (h, w), align_corners, half_pixel_centers)
RESIZE_CASES = {
    "up2": ((1, 3, 4, 5), (6, 8), False, False),
    "up_odd": ((2, 3, 5, 3), (7, 11), False, False),
    "down": ((1, 9, 8, 4), (4, 3), False, False),
    "align": ((1, 4, 5, 3), (7, 9), True, False),
    "half_pixel": ((1, 4, 5, 18), (9, 7), False, True),
    "half_pixel_down": ((1, 8, 6, 2), (3, 5), False, True),
    "same_size": ((1, 4, 4, 2), (4, 4), False, False),
}


def resize_model(op, case, dtype, out_q=None):
    xs, (oh, ow), align, half = RESIZE_CASES[case]
    _, scale, zp = QTYPES[dtype]
    oscale, ozp = out_q or (scale, zp)
    return xs, single_op_model(op, [qspec("x", xs, dtype, scale, zp), np.array([oh, ow], np.int32)],
                               [qspec("y", (xs[0], oh, ow, xs[3]), dtype, oscale, ozp)],
                               align_corners=align, half_pixel_centers=half)


@pytest.mark.parametrize("case", list(RESIZE_CASES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
def test_q_resize(backend, op, dtype, case):
    xs, model = resize_model(op, case, dtype)
    check_qop(model, [qrand(np.random.default_rng(sum(map(ord, case))), xs, dtype)], backend)


def test_q_resize_bilinear_refuses_requantization(backend):
    """TFLite resizes in the input's integer domain; a different output scale is refused."""
    _, model = resize_model("RESIZE_BILINEAR", "up2", "int8", out_q=(0.2, 1))
    with pytest.raises(onert_py.CompileError, match="same scale and zero point"):
        onert_py.Session(model, backends=with_fallback(backend))


L2_SHAPES = [(2, 3, 7), (4, 16), (1, 1, 33), (3, 1)]


@pytest.mark.parametrize("shape", L2_SHAPES, ids=str)
@pytest.mark.parametrize("dtype,zp", [("int8", -3), ("int8", 0), ("uint8", 128), ("uint8", 70)])
def test_q_l2_normalization(backend, dtype, zp, shape):
    ozp = 128 if dtype == "uint8" else 0
    model = single_op_model("L2_NORMALIZATION", [qspec("x", shape, dtype, 0.05, zp)],
                            [qspec("y", shape, dtype, 1 / 128, ozp)])
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    x = qrand(rng, shape, dtype)
    x.reshape(-1, shape[-1])[0] = zp           # an all-zero row (inv sqrt of 0 special case)
    if shape[0] > 1:                           # a row of tiny values
        x.reshape(-1, shape[-1])[1] = zp + np.arange(shape[-1]) % 2
    check_qop(model, [x], backend)


def test_q_l2_normalization_refuses_output_scale(backend):
    model = single_op_model("L2_NORMALIZATION", [qspec("x", (2, 5), "int8", 0.05, 0)],
                            [qspec("y", (2, 5), "int8", 0.01, 0)])
    with pytest.raises(onert_py.CompileError, match="1/128"):
        onert_py.Session(model, backends=with_fallback(backend))
