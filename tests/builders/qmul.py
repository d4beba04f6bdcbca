"""Quantized MUL models: parameter sets (zero points shifted for uint8) and one-op models."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import single_op_model
from builders.quant import qspec

QPARAMS = {  # (scale, zp) of a, b, out; zps shifted by 128 for uint8
    "small": ((0.03, 3), (0.07, 15), (0.04, 5)),
    "mixed": ((0.05, 11), (0.2, -13), (0.1, -6)),
    "tiny_out": ((0.1, -1), (0.013, -7), (0.0011, -11)),
    "big": ((0.5, 1), (0.9, 2), (0.004, 3)),
    "huge": ((0.5, 1), (0.9, -2), (0.000004, 0)),
    "coarse": ((0.01, 1), (0.02, 2), (0.3, 3)),
}


def qp(dtype, name):
    off = 128 if dtype == "uint8" else 0
    return [(s, z + off) for s, z in QPARAMS[name]]


def mul_model(sa, sb, dtype, qa, qb, qo, out_dtype=None, **options):
    so = np.broadcast_shapes(sa, sb)
    return single_op_model("MUL", [qspec("a", sa, dtype, *qa), qspec("b", sb, dtype, *qb)],
                           [qspec("y", so, out_dtype or dtype, *qo)], **options)
