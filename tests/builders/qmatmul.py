"""Quantized BATCH_MATMUL models: one-op models (constant or input rhs, adj_x/adj_y), the
shape cases (broadcast batch dimensions) and random operands near the zero points."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import ModelBuilder
from builders.quant import qdict

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
