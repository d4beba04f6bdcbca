"""Quantized ADD / SUB cases (models: builders.quant.quantized_binary): parameter sets (zero
points shifted for uint8), the broadcast shapes of every loop of TFLite's optimized kernels, and
inputs whose rescale rounds differently in the scalar and the vector loops."""
from __future__ import annotations

import numpy as np

from onert_py.core.quant import qmath
from onert_py.core.quant.qbinary_math import rescale_below_one, vector_input
from quant_harness import qrand

QPARAMS = {  # (scale a, zp a), (scale b, zp b), (scale out, zp out); zps shifted for uint8
    "mixed": ((0.05, 11), (0.2, -13), (0.1, -6)),
    "ties": ((0.05, 14), (0.031, 5), (0.07, 0)),
    "third": ((0.03, 3), (0.07, 15), (0.04, 5)),
    "wide": ((0.1, -1), (0.013, -7), (0.011, -11)),
    "pot": ((0.0625, 15), (0.015625, 12), (0.125, -15)),
}


def qp(dtype, name):
    off = 128 if dtype == "uint8" else 0
    return [(s, z + off) for s, z in QPARAMS[name]]


OPS_DTYPES = [("ADD", "uint8"), ("ADD", "int8"), ("SUB", "uint8"), ("SUB", "int8")]


SHAPES = [((64, 3, 27), (27,)), ((64, 3, 27), (64, 3, 1)), ((64, 13), (64, 1)),
          ((64, 13), (13,)), ((13,), (13,)), ((1,), (64, 27)), ((1,), (64, 13)), ((27,), (1,)),
          ((64, 1, 21), (1, 3, 1)), ((2, 3, 4, 5, 6, 23), (1, 1, 1, 1, 1, 23)),
          ((2, 3, 4, 5, 3, 7), (1, 3, 1, 5, 1, 7)), ((4, 1, 1, 6, 1, 3), (1, 2, 5, 1, 9, 1)),
          ((3, 1, 11), (1, 1, 1)), ((), (5, 9))]


def rounding_inputs(rng, shape, dtype, q, q_other):
    """Inputs whose rescale into the common scale (left shift 20) differs between the scalar
    loops and a vector loop's form (shift after vqrdmulh for half, shift folded in before for
    the other half), mixed with 1 in 4 uniform values."""
    info = np.iinfo(dtype)
    v = np.arange(info.min, info.max + 1, dtype=np.int64)
    scale = float(np.float32(q[0]))
    m, e = (int(t) for t in
            qmath.quantize_multiplier(scale / (2 * max(scale, float(np.float32(q_other[0]))))))
    scalar = rescale_below_one((v - q[1]) << 20, m, e)
    picks = []
    for shift_first in (False, True):
        hit = v[vector_input(v - q[1], m, e, 20, shift_first) != scalar]
        picks.append(rng.choice(hit if hit.size else v, shape))
    out = np.where(rng.random(shape) < 0.5, *picks)
    mix = rng.random(shape) < 0.25
    return np.where(mix, qrand(rng, shape, dtype), out).astype(dtype)
