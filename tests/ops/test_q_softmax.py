"""Quantized SOFTMAX (int8, uint8) against the interpreter, bit-exact: all 256 input values in a
row, random rows of ranks 1-4, beta != 1, and output parameters the interpreter refuses."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import CompileError
from op_harness import run_onert
from builders.quant import softmax_model
from quant_harness import check_qop, qrand


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si", [0.05, 0.013, 0.2])
@pytest.mark.parametrize("beta", [1.0, 0.37, 2.5])
def test_softmax_every_value(backend, dtype, si, beta):
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    x = np.stack([x, x[::-1], np.roll(x, 77)])
    check_qop(softmax_model(dtype, x.shape, (si, 3), beta=beta), [x], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 5), (2, 2, 3, 33)])
def test_softmax_ranks(backend, dtype, shape):
    x = qrand(np.random.default_rng(len(shape)), shape, dtype)
    check_qop(softmax_model(dtype, shape, (0.1, 7), beta=1.3), [x], backend)


@pytest.mark.parametrize("qout", [(0.02, 128), (1 / 256, 10)])
def test_softmax_uint8_free_output(backend, qout):
    x = qrand(np.random.default_rng(5), (4, 9), "uint8")
    check_qop(softmax_model("uint8", x.shape, (0.07, 120), qout), [x], backend)


@pytest.mark.parametrize("qout", [(1 / 256, 0), (0.02, -128)])
def test_softmax_int8_refused_output(backend, qout):
    x = qrand(np.random.default_rng(6), (2, 8), "int8")
    with pytest.raises(CompileError, match="-128"):
        run_onert(softmax_model("int8", x.shape, (0.05, 0), qout), [x], backend)
