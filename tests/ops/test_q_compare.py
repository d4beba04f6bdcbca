"""Quantized comparisons, MAXIMUM / MINIMUM and SELECT / SELECT_V2 against the interpreter,
bit-exact: every int8 / uint8 value pair under differing scales and zero points (including
power-of-two scales, where the rescale's rounding ties show), int16 samples, N-D broadcasts, and
the refusals (input scale >= 1)."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.errors import OnertPyError
from onert_py.model_builder import single_op_model
from op_harness import run_onert
from builders.quant import all_pairs, qspec
from quant_harness import check_qop, qrand

OPS = ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]
PARAMS = {  # (scale, zero point) of the two inputs; zero points shifted by 128 for uint8
    "mixed": ((0.05, -3), (0.07, 4)),
    "tiny": ((0.0001, 10), (0.00013, -7)),        # the rescale collapses neighbouring values
    "same": ((0.02, 0), (0.02, 0)),
    "wide": ((0.3, -128), (0.011, 127)),
    "pot": ((2 ** -10, -3), (2 ** -11, 4)),       # rounding ties in the rescale
    "half": ((0.9, 3), (0.7, -2)),
}


def shifted(dtype, q):
    if dtype != "uint8":
        return q
    return (q[0], int(np.clip(q[1] + 128, 0, 255)))


def compare_model(op, sa, sb, dtype, qa, qb):
    so = np.broadcast_shapes(sa, sb)
    return single_op_model(op, [qspec("a", sa, dtype, *qa), qspec("b", sb, dtype, *qb)],
                           [("y", so, "bool")])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("params", sorted(PARAMS))
def test_compare_all_pairs(backend, op, dtype, params):
    qa, qb = (shifted(dtype, q) for q in PARAMS[params])
    a, b = all_pairs(dtype)
    n = a.size - 5
    check_qop(compare_model(op, (n,), (n,), dtype, qa, qb), [a[:n], b[:n]], backend)


def int16_inputs(rng, n):
    """Full-range values, plus neighbouring pairs that the rescale may merge."""
    a = qrand(rng, (n,), "int16")
    b = qrand(rng, (n,), "int16", -400, 400)
    near = np.clip(b[: n // 2].astype(np.int64) + rng.integers(-2, 3, n // 2), -32768, 32767)
    a[: n // 2] = near
    return a, b


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("params", ["mixed", "tiny", "same", "pot"])
def test_compare_int16(backend, op, params):
    qa, qb = ((s / 50, z) for s, z in PARAMS[params])
    a, b = int16_inputs(np.random.default_rng(5), 6001)
    check_qop(compare_model(op, a.shape, b.shape, "int16", qa, qb), [a, b], backend)


SHAPES = [((2, 3, 4, 5), (1, 3, 1, 5)), ((7,), (1,)), ((), (5, 9)),
          ((2, 1, 4, 1, 3), (1, 3, 1, 5, 3)), ((2, 3, 1, 2, 2, 3), (1, 1, 4, 1, 2, 1)),
          ((3, 4, 5, 6, 7), (3, 4, 5, 6, 7))]


@pytest.mark.parametrize("op", ["EQUAL", "LESS", "GREATER_EQUAL"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_compare_broadcast(backend, op, dtype, sa, sb):
    rng = np.random.default_rng(1)
    qa, qb = (shifted(dtype, (s / (50 if dtype == "int16" else 1), z))
              for s, z in PARAMS["mixed"])
    hi = 400 if dtype == "int16" else None
    a = qrand(rng, sa, dtype, -hi if hi else None, hi)
    b = qrand(rng, sb, dtype, -hi if hi else None, hi)
    check_qop(compare_model(op, sa, sb, dtype, qa, qb), [a, b], backend)
    check_qop(compare_model(op, sb, sa, dtype, qb, qa), [b, a], backend)


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_compare_scale_above_one_is_refused(backend, scale):
    """TFLite's rescale is undefined for scales >= 1 (the interpreter aborts on 1.0)."""
    model = compare_model("EQUAL", (4,), (4,), "int8", (scale, 0), (0.5, 0))
    with pytest.raises(OnertPyError, match="scale"):
        run_onert(model, [np.zeros(4, np.int8)] * 2, backend)


def test_compare_int16_raw_ignores_scale_above_one(backend):
    """int16 ordering comparisons use the raw values: no rescale, so no refusal."""
    rng = np.random.default_rng(2)
    model = compare_model("LESS", (50,), (50,), "int16", (2.0, 3), (0.001, -4))
    check_qop(model, [qrand(rng, (50,), "int16"), qrand(rng, (50,), "int16")], backend)


MM_PARAMS = [((0.05, 3), (0.05, 3), (0.05, 3)), ((0.05, 3), (0.07, -2), (0.1, 5)),
             ((0.05, 3), (0.05, 3), (0.05, 4))]


@pytest.mark.parametrize("op", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("params", range(len(MM_PARAMS)))
@pytest.mark.parametrize("sa,sb", [((37,), (37,)), ((3, 37), (37,)),
                                   ((2, 1, 4, 1, 3, 2), (1, 3, 1, 5, 3, 1))])
def test_maximum_minimum(backend, op, dtype, params, sa, sb):
    rng = np.random.default_rng(6)
    qa, qb, qo = (shifted(dtype, q) for q in MM_PARAMS[params])
    so = np.broadcast_shapes(sa, sb)
    model = single_op_model(op, [qspec("a", sa, dtype, *qa), qspec("b", sb, dtype, *qb)],
                            [qspec("y", so, dtype, *qo)])
    check_qop(model, [qrand(rng, sa, dtype), qrand(rng, sb, dtype)], backend)


SELECT_CASES = [("SELECT", ((4, 5), (4, 5), (4, 5))), ("SELECT", ((4,), (4, 5), (4, 5))),
                ("SELECT_V2", ((4, 5), (4, 5), (4, 5))), ("SELECT_V2", ((1, 5), (4, 1), (4, 5)))]


@pytest.mark.parametrize("op,shapes", SELECT_CASES)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_select_quantized(backend, op, shapes, dtype):
    """SELECT moves the stored integers: the interpreter ignores differing parameters."""
    sc, sx, sy = shapes
    rng = np.random.default_rng(8)
    so = sx if op == "SELECT" else np.broadcast_shapes(sc, sx, sy)
    qx, qy, qo = (shifted(dtype, q) for q in MM_PARAMS[1])
    model = single_op_model(op, [("c", sc, "bool"), qspec("x", sx, dtype, *qx),
                                 qspec("y", sy, dtype, *qy)], [qspec("o", so, dtype, *qo)])
    check_qop(model, [rng.random(sc) < 0.5, qrand(rng, sx, dtype), qrand(rng, sy, dtype)], backend)
