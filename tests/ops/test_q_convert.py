"""QUANTIZE (float -> int, and requantization between int types) and DEQUANTIZE, against the
interpreter, bit-exact."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.model_builder import single_op_model
from builders.quant import QTYPES, qspec
from quant_harness import check_qop, qrand

SHAPE = (2, 3, 5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_quantize_from_float(backend, dtype):
    _, scale, zp = QTYPES[dtype]
    rng = np.random.default_rng(1)
    model = single_op_model("QUANTIZE", [("x", SHAPE, "float32")], [qspec("y", SHAPE, dtype, scale, zp)])
    x = rng.uniform(-8, 8, SHAPE).astype(np.float32)
    x.flat[:4] = [scale * 0.5, -scale * 0.5, scale * 2.5, 1e9]     # ties and saturation
    check_qop(model, [x], backend)


PAIRS = [("int8", "int8"), ("int8", "uint8"), ("uint8", "int8"), ("uint8", "uint8"),
         ("int16", "int16"), ("int16", "int8"), ("int8", "int16")]


@pytest.mark.parametrize("src,dst", PAIRS)
@pytest.mark.parametrize("ratio", [1.0, 0.37, 2.9])
def test_requantize(backend, src, dst, ratio):
    _, s_in, z_in = QTYPES[src]
    _, s_out, z_out = QTYPES[dst]
    model = single_op_model("QUANTIZE", [qspec("x", SHAPE, src, s_in, z_in)],
                            [qspec("y", SHAPE, dst, s_in * ratio if src == dst else s_out, z_out)])
    check_qop(model, [qrand(np.random.default_rng(2), SHAPE, src)], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_dequantize(backend, dtype):
    _, scale, zp = QTYPES[dtype]
    model = single_op_model("DEQUANTIZE", [qspec("x", SHAPE, dtype, scale, zp)],
                            [("y", SHAPE, "float32")])
    check_qop(model, [qrand(np.random.default_rng(3), SHAPE, dtype)], backend)
