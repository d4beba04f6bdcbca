"""Quantized MUL against the interpreter, bit-exact: every int8/uint8 value pair, multipliers
below and above one (positive shifts, where the vector lanes' int16 narrowing saturates and the
output offset wraps), vector/tail splits of every broadcast loop, fused activations, int16 ->
int16 and the legacy int16 -> int8/uint8 path."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import OnertPyError
from op_harness import run_onert
from builders.qmul import QPARAMS, qp
from builders.quant import all_pairs, quantized_binary
from quant_harness import check_qop, qrand


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("params", sorted(QPARAMS))
@pytest.mark.parametrize("tail", [0, 13])
def test_mul_all_pairs(backend, dtype, params, tail):
    a, b = all_pairs(dtype)
    n = a.size - tail
    qa, qb, qo = qp(dtype, params)
    check_qop(quantized_binary("MUL", (n,), (n,), dtype, qa, qb, qo), [a[:n], b[:n]], backend)


SHAPES = [((64, 3, 27), (27,)), ((64, 3, 27), (64, 3, 1)), ((64, 13), (64, 1)),
          ((64, 13), (13,)), ((45,), (45,)), ((1,), (64, 45)), ((1,), (64, 13)), ((45,), (1,)),
          ((64, 1, 21), (1, 3, 1)), ((2, 3, 4, 5, 3, 7), (1, 3, 1, 5, 1, 7)),
          ((4, 1, 1, 6, 1, 3), (1, 2, 5, 1, 9, 1)), ((2, 3, 45), (2, 1, 1)), ((), (5, 9))]


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("swap", [False, True])
def test_mul_broadcast(backend, dtype, sa, sb, swap):
    """"big" saturates in the vector lanes (offset wrap) but clamps in the scalar tails, so
    every element shows which loop computed it."""
    rng = np.random.default_rng(7)
    if swap:
        sa, sb = sb, sa
    for params in ("big", "small"):
        qa, qb, qo = qp(dtype, params)
        check_qop(quantized_binary("MUL", sa, sb, dtype, qa, qb, qo),
                  [qrand(rng, sa, dtype), qrand(rng, sb, dtype)], backend)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("act", ["RELU", "RELU6", "RELU_N1_TO_1"])
def test_mul_activation(backend, dtype, act):
    rng = np.random.default_rng(3)
    qa, qb, qo = ([(0.004, 0), (0.007, 0), (0.0005, 0)] if dtype == "int16"
                  else qp(dtype, "mixed"))
    for sa, sb in [((4, 37), (4, 37)), ((4, 37), (37,)), ((4, 37), (4, 1))]:
        model = quantized_binary("MUL", sa, sb, dtype, qa, qb, qo,
                                 fused_activation_function=act)
        check_qop(model, [qrand(rng, sa, dtype), qrand(rng, sb, dtype)], backend)


INT16_PARAMS = [((0.001, 0), (0.002, 0), (0.003, 0)), ((0.0001, 0), (0.00002, 0), (0.3, 0)),
                ((0.1, 0), (0.2, 0), (0.00003, 0))]


@pytest.mark.parametrize("qa,qb,qo", INT16_PARAMS)
@pytest.mark.parametrize("sa,sb", [((3, 41), (3, 41)), ((3, 41), (41,)), ((2, 1, 5), (1, 3, 1))])
def test_mul_int16(backend, qa, qb, qo, sa, sb):
    rng = np.random.default_rng(4)
    check_qop(quantized_binary("MUL", sa, sb, "int16", qa, qb, qo),
              [qrand(rng, sa, "int16"), qrand(rng, sb, "int16")], backend)


@pytest.mark.parametrize("out_dtype", ["int8", "uint8"])
@pytest.mark.parametrize("qa,qb,qo", [((0.001, 0), (0.002, 0), (0.003, 0)),
                                      ((0.001, 5), (0.002, -9), (0.3, 7)),
                                      ((2 ** -15, 0), (2 ** -15, 0), (2 ** -7, 3))])
@pytest.mark.parametrize("act", ["NONE", "RELU"])
def test_mul_int16_to_8bit(backend, out_dtype, qa, qb, qo, act):
    """The legacy path: scales and input zero points are ignored (as the interpreter does)."""
    rng = np.random.default_rng(6)
    qo = (qo[0], qo[1] + (128 if out_dtype == "uint8" else 0))
    for shape in [(3, 41), (2, 3, 5)]:
        check_qop(quantized_binary("MUL", shape, shape, "int16", qa, qb, qo, out_dtype,
                                   fused_activation_function=act),
                  [qrand(rng, shape, "int16"), qrand(rng, shape, "int16")], backend)


def test_mul_int16_to_8bit_broadcast_refused(backend):
    """The interpreter aborts on a broadcast of the legacy path; onert_py refuses it."""
    model = quantized_binary("MUL", (3, 41), (41,), "int16", (0.001, 0), (0.002, 0), (0.003, 0),
                             "int8")
    with pytest.raises(OnertPyError):
        run_onert(model, [np.zeros((3, 41), np.int16), np.zeros(41, np.int16)], backend)


@pytest.mark.parametrize("dtype,out_dtype,zp", [("int16", "int16", 5), ("int8", "int16", 0),
                                                ("uint8", "int8", 0), ("int8", "uint8", 0)])
def test_mul_refused(backend, dtype, out_dtype, zp):
    """Forms the interpreter refuses (int16 with zero points, mixed 8-bit types) are refused
    when the model is compiled."""
    model = quantized_binary("MUL", (4,), (4,), dtype, (0.1, zp), (0.1, 0), (0.1, 0), out_dtype)
    with pytest.raises(OnertPyError):
        run_onert(model, [np.zeros(4, dtype)] * 2, backend)


# ------------------------------------------------------------------ SQUARED_DIFFERENCE (int8)
@pytest.mark.parametrize("qa,qb,qo", [((0.03, 3), (0.07, -15), (0.05, -100)),
                                      ((0.07, 3), (0.03, -15), (0.004, -128)),
                                      ((0.2, -1), (0.2, 5), (0.00001, 7)),
                                      ((0.03, 0), (0.07, 0), (2.0, 0))])
def test_squared_difference_all_pairs(backend, qa, qb, qo):
    a, b = all_pairs("int8")
    model = quantized_binary("SQUARED_DIFFERENCE", a.shape, b.shape, "int8", qa, qb, qo)
    check_qop(model, [a, b], backend)


@pytest.mark.parametrize("sa,sb", [((64, 3, 27), (27,)), ((64, 13), (64, 1)), ((1,), (5, 9)),
                                   ((4, 1, 1, 6, 1, 3), (1, 2, 5, 1, 9, 1))])
def test_squared_difference_broadcast(backend, sa, sb):
    rng = np.random.default_rng(8)
    for qa, qb in [((0.03, 3), (0.07, -15)), ((0.07, 3), (0.03, -15))]:
        model = quantized_binary("SQUARED_DIFFERENCE", sa, sb, "int8", qa, qb, (0.01, -120))
        check_qop(model, [qrand(rng, sa, "int8"), qrand(rng, sb, "int8")], backend)


@pytest.mark.parametrize("dtype,qo", [("int8", (0.0000002, 0)), ("uint8", (0.05, 128)),
                                      ("int16", (0.05, 0))])
def test_squared_difference_refused(backend, dtype, qo):
    """uint8/int16 (the interpreter refuses them) and an output multiplier >= 1 (the
    interpreter aborts) are refused when the model is compiled."""
    zp = 128 if dtype == "uint8" else 0
    model = quantized_binary("SQUARED_DIFFERENCE", (4,), (4,), dtype, (0.03, zp), (0.07, zp), qo)
    with pytest.raises(OnertPyError):
        run_onert(model, [np.zeros(4, dtype)] * 2, backend)
