"""Quantized (uint8) DIV against the interpreter, bit-exact: every pair of input values (but
divisors equal to their zero point, which the interpreter refuses at run time, and so do we),
multipliers below and above one, tiny dividends (where TFLite's final shift exceeds 31),
broadcasting, fused activations; int8 DIV is refused as the interpreter refuses it."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import ExecutionError, OnertPyError
from op_harness import run_onert
from builders.quant import quantized_binary
from quant_harness import check_qop, qrand

QPARAMS = {  # (scale, zp) of a, b, out
    "unit": ((0.05, 128), (0.05, 128), (0.05, 128)),
    "mixed": ((0.03, 3), (0.07, 15), (0.04, 5)),
    "tiny_out": ((0.1, 200), (0.013, 7), (0.0011, 11)),
    "coarse": ((0.01, 100), (0.2, 50), (0.3, 60)),
    "small_real": ((0.001, 0), (1.0, 0), (0.1, 128)),
    "big": ((0.5, 1), (0.9, 2), (0.5, 3)),
}


def div_model(sa, sb, qa, qb, qo, dtype="uint8", **options):
    return quantized_binary("DIV", sa, sb, dtype, qa, qb, qo, **options)


def nonzero_pairs(zp2: int):
    v = np.arange(256)
    a, b = np.meshgrid(v, v, indexing="ij")
    a, b = a.reshape(-1).astype(np.uint8), b.reshape(-1).astype(np.uint8)
    keep = b != zp2
    return a[keep], b[keep]


@pytest.mark.parametrize("params", sorted(QPARAMS))
def test_div_all_pairs(backend, params):
    qa, qb, qo = QPARAMS[params]
    a, b = nonzero_pairs(qb[1])
    check_qop(div_model(a.shape, b.shape, qa, qb, qo), [a, b], backend)


@pytest.mark.parametrize("act", ["RELU", "RELU6", "RELU_N1_TO_1"])
def test_div_activation(backend, act):
    qa, qb, qo = QPARAMS["mixed"]
    a, b = nonzero_pairs(qb[1])
    model = div_model(a.shape, b.shape, qa, qb, qo, fused_activation_function=act)
    check_qop(model, [a, b], backend)


@pytest.mark.parametrize("sa,sb", [((4, 5, 6), (6,)), ((4, 1, 6), (1, 5, 1)), ((1,), (3, 7)),
                                   ((3, 7), (1,)), ((2, 3, 1, 4), (3, 5, 1))])
def test_div_broadcast(backend, sa, sb):
    qa, qb, qo = QPARAMS["coarse"]
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a = qrand(rng, sa, "uint8")
    b = qrand(rng, sb, "uint8")
    b[b == qb[1]] = qb[1] + 1
    check_qop(div_model(sa, sb, qa, qb, qo), [a, b], backend)


def test_div_by_zero_point_is_an_error(backend):
    qa, qb, qo = QPARAMS["mixed"]
    a = np.full(8, 40, np.uint8)
    b = np.full(8, 20, np.uint8)
    model = div_model((8,), (8,), qa, qb, qo)
    run_onert(model, [a, b], backend)
    b[5] = qb[1]
    with pytest.raises(ExecutionError, match="divisor equals its zero point"):
        run_onert(model, [a, b], backend)


def test_int8_div_refused(backend):
    model = div_model((4,), (4,), (0.05, 3), (0.05, 1), (0.05, 0), dtype="int8")
    with pytest.raises(OnertPyError, match="DIV"):
        run_onert(model, [np.ones(4, np.int8), np.full(4, 3, np.int8)], backend)
