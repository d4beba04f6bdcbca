"""Quantized LOG_SOFTMAX (int8, uint8), SOFTMAX 8-bit -> int16, and int16 TANH / LOGISTIC
(fixed-point and sigmoid-table paths) against the interpreter, bit-exact: every 8-bit input value
in rows, every int16 value in one tensor, and the parameters the interpreter refuses."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import CompileError
from op_harness import run_onert
from builders.quant import quantized_unary
from quant_harness import check_qop, qrand
from oracle import tflite_run

LOG_OUT = {"int8": (16 / 256, 127), "uint8": (16 / 256, 255)}


def rows_of_every(dtype, seed=0):
    """Every value of the 8-bit `dtype` in rows: ascending, descending, rolled, shuffled, and a
    row of thirds (repeated values, a smaller spread)."""
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    rng = np.random.default_rng(seed)
    return np.stack([x, x[::-1], np.roll(x, 77), rng.permutation(x), (x // 3).astype(dtype)])


# ------------------------------------------------------------------ LOG_SOFTMAX
def log_softmax(dtype, shape, si, zi, qout=None):
    qout = qout or LOG_OUT[dtype]
    return quantized_unary("LOG_SOFTMAX", shape, (dtype, si, zi), (dtype, *qout))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si", [0.05, 0.013, 0.2, 1.0, 0.001, 0.37])
def test_log_softmax_every_value(backend, dtype, si):
    x = rows_of_every(dtype)
    check_qop(log_softmax(dtype, x.shape, si, 3 if dtype == "int8" else 130), [x], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 5), (2, 2, 3, 33), (4, 1)])
def test_log_softmax_ranks(backend, dtype, shape):
    x = qrand(np.random.default_rng(len(shape) + sum(shape)), shape, dtype)
    check_qop(log_softmax(dtype, shape, 0.1, 7), [x], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_log_softmax_narrow_rows(backend, dtype):
    """Rows whose values differ by a few steps (results near the top of the range, ties)."""
    rng = np.random.default_rng(11)
    base = qrand(rng, (40, 1), dtype, *((-100, 100) if dtype == "int8" else (20, 230)))
    x = (base.astype(np.int64) + rng.integers(0, 4, (40, 12))).astype(dtype)
    for si in (0.5, 0.0625, 0.02):
        check_qop(log_softmax(dtype, x.shape, si, 0), [x], backend)


@pytest.mark.parametrize("dtype,qout", [("int8", (16 / 256, 0)), ("int8", (0.05, 127)),
                                        ("uint8", (16 / 256, 127)), ("uint8", (1 / 256, 255))])
def test_log_softmax_refused_output(backend, dtype, qout):
    x = qrand(np.random.default_rng(2), (2, 8), dtype)
    model = log_softmax(dtype, x.shape, 0.05, 0, qout)
    with pytest.raises(Exception):
        tflite_run(model, [x])                       # the interpreter refuses it too
    with pytest.raises(CompileError, match="16/256"):
        run_onert(model, [x], backend)


def test_log_softmax_int16_refused(backend):
    x = qrand(np.random.default_rng(4), (2, 8), "int16")
    model = quantized_unary("LOG_SOFTMAX", x.shape, ("int16", 0.001, 0), ("int16", 16 / 256, 0))
    with pytest.raises(Exception):
        tflite_run(model, [x])
    with pytest.raises(CompileError):
        run_onert(model, [x], backend)


# ------------------------------------------------------------------ SOFTMAX 8-bit -> int16
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("si,beta", [(0.05, 1.0), (0.013, 0.37), (0.2, 2.5)])
@pytest.mark.parametrize("so,zo", [(1 / 32768, 0), (1 / 65536, -32768), (0.001, 5),
                                   (2 / 65536, -20000)])
def test_softmax_to_int16(backend, dtype, si, beta, so, zo):
    x = rows_of_every(dtype)
    model = quantized_unary("SOFTMAX", x.shape, (dtype, si, 3), ("int16", so, zo), beta=beta)
    check_qop(model, [x], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("shape", [(7,), (3, 17), (2, 3, 5), (2, 2, 3, 33)])
def test_softmax_to_int16_ranks(backend, dtype, shape):
    x = qrand(np.random.default_rng(len(shape)), shape, dtype)
    check_qop(quantized_unary("SOFTMAX", shape, (dtype, 0.1, 7), ("int16", 1 / 32768, 0),
                              beta=1.3), [x], backend)


# ------------------------------------------------------------------ int16 TANH / LOGISTIC
def every_int16(extra=13):
    """All int16 values, then `extra` again (so that results sit at vector and tail positions)."""
    x = np.arange(-32768, 32768).astype(np.int16)
    return np.concatenate([x, x[:extra]]).reshape(1, -1)


@pytest.mark.parametrize("op,si", [
    ("TANH", 2 ** -12), ("TANH", 2 ** -11),
    ("TANH", 2 ** -12 * 1.0005), ("TANH", 2 ** -11 * 0.9995),      # within CheckedLog2's 1e-3
    ("LOGISTIC", 2 ** -12), ("LOGISTIC", 2 ** -12 * 1.0005)])
def test_tanh_logistic_int16_every_value(backend, op, si):
    x = every_int16()
    check_qop(quantized_unary(op, x.shape, ("int16", si, 0), ("int16", 1 / 32768, 0)), [x], backend)


def test_tanh_int16_near_output_scale(backend):
    """TANH accepts an output scale within CheckedLog2's tolerance of 2^-15 (the raw results do
    not change); LOGISTIC does not (below)."""
    x = every_int16(extra=5)
    check_qop(quantized_unary("TANH", x.shape, ("int16", 2 ** -12, 0),
                              ("int16", 1 / 32768 * 1.0004, 0)), [x], backend)


@pytest.mark.parametrize("shape", [(5,), (3, 9), (2, 3, 17), (2, 2, 2, 31)])
@pytest.mark.parametrize("op", ["TANH", "LOGISTIC"])
def test_tanh_logistic_int16_ranks(backend, op, shape):
    x = qrand(np.random.default_rng(len(shape)), shape, "int16")
    model = quantized_unary(op, shape, ("int16", 2 ** -12, 0), ("int16", 1 / 32768, 0))
    check_qop(model, [x], backend)


@pytest.mark.parametrize("op,si", [
    # powers of two off the fixed-point path, then other scales (TFLite's sigmoid table path)
    ("TANH", 2 ** -13), ("TANH", 2 ** -10), ("TANH", 2 ** -16), ("TANH", 0.001),
    ("TANH", 0.0003), ("TANH", 1 / 3000), ("TANH", 0.1),
    ("LOGISTIC", 2 ** -11), ("LOGISTIC", 2 ** -13), ("LOGISTIC", 2 ** -8), ("LOGISTIC", 0.001),
    ("LOGISTIC", 3.7e-5), ("LOGISTIC", 1.0),
    ("TANH", 300.0), ("LOGISTIC", 300.0),     # x * multiplier wraps like int32 in TFLite too
])
def test_tanh_logistic_int16_table_path(backend, op, si):
    """Every int16 value at input scales for which the interpreter interpolates in its 256-entry
    sigmoid table (reference_integer_ops::Tanh / Logistic with an input multiplier)."""
    x = every_int16(extra=3)
    check_qop(quantized_unary(op, x.shape, ("int16", si, 0), ("int16", 1 / 32768, 0)), [x], backend)


@pytest.mark.parametrize("si", [1e-14, 1e6])
def test_tanh_int16_scale_out_of_table_range_refused(backend, si):
    """Input scales whose table-path multiplier is 0 or past int32 (undefined in TFLite's C++)."""
    x = qrand(np.random.default_rng(8), (3, 7), "int16")
    model = quantized_unary("TANH", x.shape, ("int16", si, 0), ("int16", 1 / 32768, 0))
    with pytest.raises(CompileError, match="table path"):
        run_onert(model, [x], backend)


@pytest.mark.parametrize("op,si,qout,match", [
    ("TANH", 2 ** -12, (2 ** -14, 0), "1/32768"),
    ("TANH", 2 ** -12, (1 / 32768, 3), "zero points"),
    ("LOGISTIC", 2 ** -12, (1 / 32768 * 1.0004, 0), "1/32768"),
    ("LOGISTIC", 2 ** -12, (1 / 32768, -1), "zero points"),
])
def test_tanh_logistic_int16_refused_output(backend, op, si, qout, match):
    x = qrand(np.random.default_rng(9), (2, 6), "int16")
    model = quantized_unary(op, x.shape, ("int16", si, 0), ("int16", *qout))
    with pytest.raises(Exception):
        tflite_run(model, [x])
    with pytest.raises(CompileError, match=match):
        run_onert(model, [x], backend)


def test_tanh_logistic_int16_input_zero_point_refused(backend):
    x = qrand(np.random.default_rng(10), (2, 6), "int16")
    model = quantized_unary("TANH", x.shape, ("int16", 2 ** -12, 4), ("int16", 1 / 32768, 0))
    with pytest.raises(Exception):
        tflite_run(model, [x])
    with pytest.raises(CompileError, match="zero points"):
        run_onert(model, [x], backend)
