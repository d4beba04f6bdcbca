"""Quantized RSQRT int8, HARD_SWISH (int8, uint8) and int16 SOFTMAX against the interpreter,
bit-exact: every 8-bit input value (and dense int16 sweeps) in one tensor, and the parameters
the interpreter refuses. (int16 TANH / LOGISTIC and LOG_SOFTMAX: test_q_logsoftmax_tanh16.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import CompileError, OnertPyError
from op_harness import run_onert
from builders.quant import quantized_unary
from quant_harness import check_qop, qrand


def every(dtype, lo=None, extra=0):
    """All values of `dtype` from `lo` up, then `extra` of them again (vector/tail positions)."""
    info = np.iinfo(dtype)
    x = np.arange(info.min if lo is None else lo, info.max + 1).astype(dtype)
    return np.concatenate([x, x[:extra]]).reshape(1, -1)


def shift(dtype, zp):
    return zp + 128 if dtype == "uint8" else zp


def check(backend, op, dtype, qin, qout, x, **options):
    check_qop(quantized_unary(op, x.shape, (dtype, *qin), (dtype, *qout), **options), [x], backend)


# ------------------------------------------------------------------ RSQRT int8
@pytest.mark.parametrize("si,zi,so,zo", [
    (0.0053347256034612656, -128, 0.004520162474364042, -128),     # transformer_block_int8
    (0.006629916373640299, -128, 0.0037529703695327044, -128),
    (0.05, -100, 0.03, 20), (0.2, 5, 0.011, 3), (0.001, -128, 0.5, -128), (3.0, 0, 0.0001, -50)])
def test_rsqrt_int8(backend, si, zi, so, zo):
    check(backend, "RSQRT", "int8", (si, zi), (so, zo), every("int8", lo=zi, extra=9))


def test_rsqrt_int8_below_zero_point_fails_at_run(backend):
    x = np.array([[5, 2, 9]], np.int8)
    with pytest.raises(OnertPyError, match="zero point"):
        run_onert(quantized_unary("RSQRT", x.shape, ("int8", 0.1, 3), ("int8", 0.1, 0)), [x],
                  backend)


# ------------------------------------------------------------------ HARD_SWISH
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,zi,so,zo", [(0.05, 3, 0.03, -60), (0.013, 7, 0.011, -100),
                                         (0.2, 0, 0.1, -30), (0.1, -20, 0.5, 10),
                                         (0.005, -5, 0.004, -120), (0.3, 10, 0.003, 0)])
def test_hard_swish(backend, dtype, si, zi, so, zo):
    x = every(dtype, extra=15)
    check(backend, "HARD_SWISH", dtype, (si, shift(dtype, zi)), (so, shift(dtype, zo)), x)


def test_hard_swish_refused_output_scale(backend):
    x = every("int8")
    with pytest.raises(CompileError, match="128"):
        run_onert(quantized_unary("HARD_SWISH", x.shape, ("int8", 1.0, 0), ("int8", 0.005, 0)),
                  [x], backend)


# ------------------------------------------------------------------ SOFTMAX int16
def softmax16(shape, si, beta=1.0, qout=(1 / 32768, 0)):
    return quantized_unary("SOFTMAX", shape, ("int16", si, 0), ("int16", *qout), beta=beta)


@pytest.mark.parametrize("si,beta", [(0.001, 1.0), (0.0003, 1.0), (0.01, 0.5), (0.00005, 2.0)])
def test_softmax_int16_sweep(backend, si, beta):
    x = np.arange(-32768, 32768, 37).astype(np.int16)
    x = np.stack([x, x[::-1], np.roll(x, 301)])
    check_qop(softmax16(x.shape, si, beta), [x], backend)


@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 50), (2, 2, 3, 33)])
def test_softmax_int16_ranks(backend, shape):
    x = qrand(np.random.default_rng(len(shape)), shape, "int16")
    check_qop(softmax16(shape, 0.002, 1.3), [x], backend)


@pytest.mark.parametrize("qout", [(1 / 32768, 5), (1 / 256, 0)])
def test_softmax_int16_refused_output(backend, qout):
    x = qrand(np.random.default_rng(3), (2, 8), "int16")
    with pytest.raises(CompileError, match="1/32768"):
        run_onert(softmax16(x.shape, 0.001, qout=qout), [x], backend)
