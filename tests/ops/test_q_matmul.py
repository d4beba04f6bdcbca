"""Quantized BATCH_MATMUL (int8 -> int8, int8 -> int32, int16 x int16, int16 x int8) against the
interpreter, bit-exact: adj_x/adj_y, broadcast batch dimensions, constant and non-constant rhs,
multipliers that produce rounding ties (0.25, 0.5)."""
from __future__ import annotations

import numpy as np
import pytest

import onert_py
from onert_py.model_builder import ModelBuilder
from quant_harness import check_qop, qdict

import onert_py.backends.cpu.ops.quant.qbatch_matmul  # noqa: F401  (registers the kernel)

A_SCALE, B_SCALE = 0.05, 0.01


def bmm_model(a_shape, adt, azp, b, bzp, b_const, y_shape, ydt, ys, yzp, **opts) -> bytes:
    mb = ModelBuilder()
    a = mb.add_input("a", a_shape, adt, quant=qdict(A_SCALE, azp))
    bq = qdict(B_SCALE, bzp)
    bb = mb.add_const("b", b, quant=bq) if b_const else mb.add_input("b", b.shape, str(b.dtype),
                                                                      quant=bq)
    y = mb.add_tensor("y", y_shape, ydt, quant=None if ys is None else qdict(ys, yzp))
    mb.add_op("BATCH_MATMUL", [a, bb], [y], **opts)
    mb.add_output(y)
    return mb.build()


def out_shape(ash, bsh, adj_x, adj_y):
    a, b = list(ash), list(bsh)
    if adj_x:
        a[-1], a[-2] = a[-2], a[-1]
    if adj_y:
        b[-1], b[-2] = b[-2], b[-1]
    return np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2])) + (a[-2], b[-1])


SHAPES = {   # name: (lhs, rhs, adj_x, adj_y)
    "3d": ((2, 5, 16), (2, 16, 7), False, False),
    "rhs2d": ((2, 5, 16), (16, 7), False, False),
    "bcast4d": ((3, 1, 5, 16), (1, 4, 16, 7), False, False),
    "rhs_one": ((2, 3, 5, 16), (2, 1, 16, 7), False, False),
    "adj_xy": ((2, 16, 5), (2, 7, 16), True, True),
    "adj_y": ((2, 5, 16), (7, 16), False, True),
    "adj_x_bcast": ((1, 16, 5), (3, 16, 7), True, False),
}


def case(rng, adt, bdt, name, zps, small=(-4, 4)):
    ash, bsh, adj_x, adj_y = SHAPES[name]
    ai, bi = np.iinfo(adt), np.iinfo(bdt)
    a = np.clip(rng.integers(*small, ash, endpoint=True) + zps[0], ai.min, ai.max).astype(adt)
    b = np.clip(rng.integers(*small, bsh, endpoint=True) + zps[1], bi.min, bi.max).astype(bdt)
    return a, b, adj_x, adj_y


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("real", [0.25, 0.37, 0.5, 3.0])
@pytest.mark.parametrize("b_const", [False, True])
@pytest.mark.parametrize("zps", [(0, 0, 0), (3, -2, 5)])
def test_q_bmm_int8(name, real, b_const, zps):
    rng = np.random.default_rng(len(name) * 7 + int(real * 100))
    a, b, adj_x, adj_y = case(rng, "int8", "int8", name, zps)
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(real))
    model = bmm_model(a.shape, "int8", zps[0], b, zps[1], b_const,
                      out_shape(a.shape, b.shape, adj_x, adj_y), "int8", ys, zps[2],
                      adj_x=adj_x, adj_y=adj_y)
    check_qop(model, [a] if b_const else [a, b])


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("bdt", ["int16", "int8"])
@pytest.mark.parametrize("real", [0.25, 0.37, 0.5, 3.0])
def test_q_bmm_int16(name, bdt, real):
    rng = np.random.default_rng(len(name) + int(real * 100))
    a, b, adj_x, adj_y = case(rng, "int16", bdt, name, (0, 0, 0), small=(-40, 40))
    ys = float(np.float32(A_SCALE) * np.float32(B_SCALE) / np.float32(real)) * 10
    model = bmm_model(a.shape, "int16", 0, b, 0, False, out_shape(a.shape, b.shape, adj_x, adj_y),
                      "int16", ys, 0, adj_x=adj_x, adj_y=adj_y)
    check_qop(model, [a, b])


@pytest.mark.parametrize("adt", ["int8", "int16"])
def test_q_bmm_full_range(adt):
    rng = np.random.default_rng(2)
    a, b, adj_x, adj_y = case(rng, adt, adt, "bcast4d", (0, 0, 0), small=(-127, 127))
    a = np.repeat(a, 20, axis=-1)                 # depth 320
    b = np.repeat(b, 20, axis=-2)
    ys = 0.05 if adt == "int8" else 0.5
    model = bmm_model(a.shape, adt, 0, b, 0, True, out_shape(a.shape, b.shape, False, False),
                      adt, ys, 0)
    check_qop(model, [a])


def test_q_bmm_int8_to_int32():
    """An unquantized int32 output holds the raw sums of products (zero points ignored)."""
    rng = np.random.default_rng(4)
    a, b, adj_x, adj_y = case(rng, "int8", "int8", "3d", (0, 0, 0), small=(-128, 127))
    model = bmm_model(a.shape, "int8", 3, b, -1, False, out_shape(a.shape, b.shape, False, False),
                      "int32", None, 0)
    check_qop(model, [a, b])


def test_q_bmm_refuses_int16_zero_point():
    """batch_matmul.cc requires zero points 0 for int16; so do we."""
    rng = np.random.default_rng(5)
    a, b, _, _ = case(rng, "int16", "int16", "3d", (0, 0, 0))
    model = bmm_model(a.shape, "int16", 0, b, 0, True, (2, 5, 7), "int16", 0.01, 4)
    with pytest.raises(onert_py.CompileError, match="zero points 0"):
        onert_py.Session(model, backends="cpu")
