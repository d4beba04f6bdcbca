"""acl_neon's 8-bit FULLY_CONNECTED, pooling, ADD/SUB/MUL and TANH/LOGISTIC against the
interpreter, bit-exact, through the quantized op tests' model builders (tests/ops/test_q_*.py);
every model runs on acl_neon alone (no cpu fallback: the op must be taken) with 1 and 2
threads."""
from __future__ import annotations

import numpy as np
import pytest

from builders.qadd import SHAPES
from builders.qadd import qp as add_qp
from builders.qfc import GRID, REALS, fc_model, make_case
from builders.qmul import qp as mul_qp
from builders.qpool import POOL_CASES, pool_model
from builders.quant import all_pairs, quantized_binary, quantized_unary
from neon_harness import ISAS, check_threads
from quant_harness import qrand

pytestmark = pytest.mark.skipif(not ISAS, reason="acl_neon's _quant module is not built")


@pytest.mark.parametrize("dt,zps,per_channel", [
    ("int8", (0, 0, 0), False), ("int8", (-5, 0, 3), False), ("int8", (-5, 0, 3), True),
    ("uint8", (128, 128, 128), False), ("uint8", (120, 131, 90), False)])
@pytest.mark.parametrize("shape", GRID, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("real", REALS[1::2])
def test_fc(dt, zps, per_channel, shape, real):
    rng = np.random.default_rng([sum(map(abs, zps)), *shape, int(real * 100)])
    x, w, ws, b, ys = make_case(rng, dt, *shape, real, zps, per_channel=per_channel,
                                small=False)
    model = fc_model(x.shape, dt, zps[0], w, ws, zps[1], b, (shape[0], shape[2]), dt, ys, zps[2],
                     fused_activation_function="RELU6")
    check_threads(model, [x])


@pytest.mark.parametrize("case", list(POOL_CASES))
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_pool(op, dtype, case):
    xs, model = pool_model(op, case, dtype)
    rng = np.random.default_rng(sum(map(ord, case)))
    x = qrand(rng, xs, dtype)
    if case == "2x2_s2_valid":      # many exact .5 ties of the average
        x = qrand(rng, xs, dtype, 0, 3) if dtype == "uint8" else qrand(rng, xs, dtype, -3, 3)
    check_threads(model, [x])


@pytest.mark.parametrize("op,dtype", [("ADD", "int8"), ("ADD", "uint8"), ("SUB", "int8")])
@pytest.mark.parametrize("tail", [0, 5])
def test_addsub_all_pairs(op, dtype, tail):
    a, b = all_pairs(dtype)
    n = a.size - tail
    qa, qb, qo = add_qp(dtype, "ties")
    check_threads(quantized_binary(op, (n,), (n,), dtype, qa, qb, qo), [a[:n], b[:n]])


@pytest.mark.parametrize("op", ["ADD", "MUL"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("sa,sb", [s for s in SHAPES if max(len(s[0]), len(s[1])) <= 4])
def test_binary_broadcast(op, dtype, sa, sb):
    rng = np.random.default_rng(7)
    if op == "ADD":
        model = quantized_binary(op, sa, sb, dtype, *add_qp(dtype, "mixed"),
                                 fused_activation_function="RELU6")
    else:
        model = quantized_binary("MUL", sa, sb, dtype, *mul_qp(dtype, "big"))
    check_threads(model, [qrand(rng, sa, dtype), qrand(rng, sb, dtype)])


@pytest.mark.parametrize("op,qout", [("TANH", {"int8": (1 / 128, 0), "uint8": (1 / 128, 128)}),
                                     ("LOGISTIC", {"int8": (1 / 256, -128),
                                                   "uint8": (1 / 256, 0)})])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_lut(op, qout, dtype):
    zp = 3 if dtype == "int8" else 131
    x = np.arange(256, dtype=np.uint8).view(dtype).reshape(4, 64)
    check_threads(quantized_unary(op, x.shape, (dtype, 0.06, zp), (dtype, *qout[dtype])), [x])
