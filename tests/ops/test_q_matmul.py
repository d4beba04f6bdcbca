"""Quantized BATCH_MATMUL (int8 -> int8, int8 -> int32, int16 x int16, int16 x int8) against the
interpreter, bit-exact: adj_x/adj_y, broadcast batch dimensions, constant and non-constant rhs,
multipliers that produce rounding ties (0.25, 0.5)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from builders.qmatmul import A_SCALE, B_SCALE, SHAPES, bmm_model, case, out_shape
from op_harness import with_fallback
from quant_harness import check_qop

import onert_py.backends.cpu.ops.quant.qbatch_matmul  # noqa: F401  (registers the kernel)


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("real", [0.25, 0.37, 0.5, 3.0])
@pytest.mark.parametrize("b_const", [False, True])
@pytest.mark.parametrize("zps", [(0, 0, 0), (3, -2, 5)])
def test_q_bmm_int8(backend, name, real, b_const, zps):
    rng = np.random.default_rng(len(name) * 7 + int(real * 100))
    a, b, adj_x, adj_y = case(rng, "int8", "int8", name, zps)
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(real))
    model = bmm_model(a.shape, "int8", zps[0], b, zps[1], b_const,
                      out_shape(a.shape, b.shape, adj_x, adj_y), "int8", ys, zps[2],
                      adj_x=adj_x, adj_y=adj_y)
    check_qop(model, [a] if b_const else [a, b], backend)


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("bdt", ["int16", "int8"])
@pytest.mark.parametrize("real", [0.25, 0.37, 0.5, 3.0])
def test_q_bmm_int16(backend, name, bdt, real):
    rng = np.random.default_rng(len(name) + int(real * 100))
    a, b, adj_x, adj_y = case(rng, "int16", bdt, name, (0, 0, 0), small=(-40, 40))
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(real)) * 10
    model = bmm_model(a.shape, "int16", 0, b, 0, False, out_shape(a.shape, b.shape, adj_x, adj_y),
                      "int16", ys, 0, adj_x=adj_x, adj_y=adj_y)
    check_qop(model, [a, b], backend)


@pytest.mark.parametrize("adt", ["int8", "int16"])
def test_q_bmm_full_range(backend, adt):
    rng = np.random.default_rng(2)
    a, b, adj_x, adj_y = case(rng, adt, adt, "bcast4d", (0, 0, 0), small=(-127, 127))
    a = np.repeat(a, 20, axis=-1)                 # depth 320
    b = np.repeat(b, 20, axis=-2)
    ys = 0.05 if adt == "int8" else 0.5
    model = bmm_model(a.shape, adt, 0, b, 0, True, out_shape(a.shape, b.shape, False, False),
                      adt, ys, 0)
    check_qop(model, [a], backend)


def test_q_bmm_int8_to_int32(backend):
    """An unquantized int32 output holds the raw sums of products (zero points ignored)."""
    rng = np.random.default_rng(4)
    a, b, adj_x, adj_y = case(rng, "int8", "int8", "3d", (0, 0, 0), small=(-128, 127))
    model = bmm_model(a.shape, "int8", 3, b, -1, False, out_shape(a.shape, b.shape, False, False),
                      "int32", None, 0)
    check_qop(model, [a, b], backend)


def test_q_bmm_refuses_int16_zero_point(backend):
    """batch_matmul.cc requires zero points 0 for int16; so do we."""
    rng = np.random.default_rng(5)
    a, b, _, _ = case(rng, "int16", "int16", "3d", (0, 0, 0))
    model = bmm_model(a.shape, "int16", 0, b, 0, True, (2, 5, 7), "int16", 0.01, 4)
    with pytest.raises(onert_py.CompileError, match="zero points 0"):
        onert_py.Session(model, backends=with_fallback(backend))
