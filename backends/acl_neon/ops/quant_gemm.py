"""The quantized native kernels' (module _quant) operands and requantization constants: the
native form of core/ops/conv2d.py's ConvRequant (`conv_requant`: the very int64 formulas, so
results are bit-exact with the cpu kernels and the interpreter) and the int8 weights and
correction terms of the u8 x s8 GEMM (`gemm_operands`, csrc/quant/qgemm.h). Used by
conv2d.py, depthwise_conv2d.py, fully_connected.py and batch_matmul.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.quant_base import I8

I32, I64 = np.int32, np.int64
MAX_DEPTH = (1 << 31) // (255 * 255)      # exact int32 dot products and correction terms


def conv_requant(rq, n: int) -> dict:
    """The native form of a ConvRequant (int64 arrays per channel)."""
    def per(v):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(v, I64), (n,)))
    thresh = np.full(n, np.iinfo(I64).min, I64)
    dfix = np.zeros(n, I64)
    thresh[rq.split:] = rq.thresh
    dfix[rq.split:] = rq.dfix
    return {"fc": False, "m": per(rq.m), "k": per(rq.k), "thresh": thresh, "dfix": dfix,
            "s": per(rq.s).astype(I32), "zp_add": 0 if rq.fold else rq.zp,
            "lo": rq.lo, "hi": rq.hi}


def gemm_operands(w2d: np.ndarray, x_dtype, x_zp: int, w_zp: int) -> tuple:
    """(int8 weights, per-channel constant terms, rowsum coefficient, padding code) of the
    u8 x s8 product (see csrc/quant/qgemm.h)."""
    w64 = np.asarray(w2d, I64)
    if x_dtype == I8:
        return (np.ascontiguousarray(w2d, np.int8), (-(128 + x_zp) * w64.sum(axis=1)).astype(I32),
                0, (x_zp + 128) & 0xFF)
    wq = (w64 - 128).astype(np.int8)
    return (np.ascontiguousarray(wq), (-x_zp * (w64 - w_zp).sum(axis=1)).astype(I32),
            128 - w_zp, x_zp & 0xFF)
