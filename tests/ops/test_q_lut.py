"""Quantized LOGISTIC, TANH, ELU, GELU, EXP, LOG, RSQRT, SQRT against the interpreter, bit-exact:
every int8/uint8 input value (and every int16 value) in one tensor, several scales/zero points."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import CompileError, OnertPyError
from op_harness import run_onert
from builders.quant import quantized_unary
from quant_harness import check_qop

SCALES = [(0.05, 3), (0.013, -20), (0.2, 0)]      # input (scale, zero point); uint8 adds 128


def every(dtype, lo=None):
    info = np.iinfo(dtype)
    x = np.arange(info.min if lo is None else lo, info.max + 1).astype(dtype)
    return x.reshape(1, -1)


def shift(dtype, zp):
    return zp + 128 if dtype == "uint8" else zp


def check(backend, op, dtype, qin, qout, x=None, **options):
    x = every(dtype) if x is None else x
    model = quantized_unary(op, x.shape, (dtype, *qin), (dtype, *qout), **options)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,zi", SCALES)
@pytest.mark.parametrize("so,zo", [(1 / 128, 0), (0.037, -7)])
def test_tanh(backend, dtype, si, zi, so, zo):
    check(backend, "TANH", dtype, (si, shift(dtype, zi)), (so, shift(dtype, zo)))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,zi", SCALES)
def test_logistic(backend, dtype, si, zi):
    check(backend, "LOGISTIC", dtype, (si, shift(dtype, zi)),
          (1 / 256, -128 if dtype == "int8" else 0))


def test_logistic_other_zero_point(backend):
    check(backend, "LOGISTIC", "int8", (0.05, 3), (1 / 256, 5))


@pytest.mark.parametrize("si,zi", SCALES)
@pytest.mark.parametrize("so,zo", [(0.03, 20), (0.11, -100)])
def test_elu(backend, si, zi, so, zo):
    check(backend, "ELU", "int8", (si, zi), (so, zo))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("si,zi,so,zo", [(0.05, 3, 0.03, -60), (0.013, 7, 0.011, -100),
                                         (0.2, 0, 0.1, -30)])
def test_gelu_8bit(backend, dtype, approximate, si, zi, so, zo):
    check(backend, "GELU", dtype, (si, shift(dtype, zi)), (so, shift(dtype, zo)),
          approximate=approximate)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("si,so", [(0.0003, 0.0002), (0.0004, 0.0003)])
def test_gelu_int16(backend, approximate, si, so):
    check(backend, "GELU", "int16", (si, 0), (so, 0), approximate=approximate)


@pytest.mark.parametrize("si,zi,so,zo", [(0.05, 3, 0.2, -128), (0.013, -20, 0.05, -100),
                                         (0.2, 0, 0.2, -128)])
def test_exp_int8(backend, si, zi, so, zo):
    check(backend, "EXP", "int8", (si, zi), (so, zo))


@pytest.mark.parametrize("si,so", [(0.0002, 0.0003), (0.00005, 0.0001)])
def test_exp_int16(backend, si, so):
    check(backend, "EXP", "int16", (si, 0), (so, 0))


@pytest.mark.parametrize("si,zi,so,zo", [(0.05, -100, 0.03, 20), (0.013, -128, 0.05, 60),
                                         (0.2, 0, 0.1, -30)])
def test_log_int8(backend, si, zi, so, zo):
    check(backend, "LOG", "int8", (si, zi), (so, zo))


@pytest.mark.parametrize("si,so", [(0.001, 0.0005), (0.0001, 0.002)])
def test_log_int16(backend, si, so):
    check(backend, "LOG", "int16", (si, 0), (so, 0))


@pytest.mark.parametrize("si,so", [(0.001, 0.0005), (0.0001, 0.002)])
def test_rsqrt_int16(backend, si, so):
    check(backend, "RSQRT", "int16", (si, 0), (so, 0), x=every("int16", lo=0))


@pytest.mark.parametrize("dtype,si,zi,so,zo", [("int8", 0.05, -100, 0.03, -128),
                                               ("int8", 0.2, 5, 0.011, 3),
                                               ("int16", 0.001, 0, 0.0005, 0),
                                               ("int16", 0.0001, 0, 0.00002, 0)])
def test_sqrt(backend, dtype, si, zi, so, zo):
    check(backend, "SQRT", dtype, (si, zi), (so, zo), x=every(dtype, lo=zi))


@pytest.mark.parametrize("op", ["SQRT", "RSQRT"])
def test_negative_input_fails_at_run(backend, op):
    x = np.array([[0, 5, -3]], np.int16)
    model = quantized_unary(op, x.shape, ("int16", 0.01, 0), ("int16", 0.01, 0))
    with pytest.raises(OnertPyError, match="zero point"):
        run_onert(model, [x], backend)


@pytest.mark.parametrize("op,dtype,qout", [("LOGISTIC", "int8", (0.02, -128)),
                                           ("LOGISTIC", "uint8", (1 / 128, 0)),
                                           ("EXP", "int16", (0.001, 5)),
                                           ("LOG", "int16", (0.001, 3))])
def test_refused_output_params(backend, op, dtype, qout):
    x = every(dtype)
    model = quantized_unary(op, x.shape, (dtype, 0.05, 0), (dtype, *qout))
    with pytest.raises(CompileError):
        run_onert(model, [x], backend)
