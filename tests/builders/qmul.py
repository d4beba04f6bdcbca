"""Quantized MUL parameter sets, zero points shifted for uint8 (models:
builders.quant.quantized_binary)."""
from __future__ import annotations

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
