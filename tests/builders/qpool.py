"""Quantized pooling (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D) and reduction (MEAN, SUM,
REDUCE_MAX/MIN/PROD) models and their cases, on the activations of builders.quant.QTYPES."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import single_op_model
from builders import single_op
from builders.quant import QTYPES, qdict, qspec

# (input NHWC, filter (h, w), stride (h, w), padding, activation)
POOL_CASES = {
    "2x2_s2_valid": ((1, 8, 8, 3), (2, 2), (2, 2), "VALID", "NONE"),
    "2x2_s2_same_odd": ((1, 7, 9, 17), (2, 2), (2, 2), "SAME", "NONE"),
    "3x3_s1_same": ((1, 6, 7, 8), (3, 3), (1, 1), "SAME", "NONE"),
    "3x3_s2_same": ((2, 9, 8, 33), (3, 3), (2, 2), "SAME", "NONE"),
    "3x2_s_2x1": ((1, 8, 6, 3), (3, 2), (2, 1), "SAME", "NONE"),
    "global": ((2, 5, 5, 16), (5, 5), (1, 1), "VALID", "NONE"),
    "big_window": ((1, 20, 20, 5), (20, 20), (1, 1), "VALID", "NONE"),
    "relu6": ((1, 8, 8, 3), (3, 3), (2, 2), "SAME", "RELU6"),
    "relu": ((1, 6, 6, 3), (2, 2), (2, 2), "VALID", "RELU"),
    "relu_n1_to_1": ((1, 6, 6, 3), (2, 2), (1, 1), "VALID", "RELU_N1_TO_1"),
}


def pool_model(op, case, dtype, out_q=None):
    """(input shape, model) of POOL_CASES[case] on QTYPES[dtype]'s activations; the output's
    (scale, zero_point) `out_q`, by default the input's."""
    xs, f, s, padding, act = POOL_CASES[case]
    _, scale, zp = QTYPES[dtype]
    return xs, single_op.pool_model(op, xs, f, s, padding, act, dtype, qdict(scale, zp),
                                    qdict(*(out_q or (scale, zp))))


# ---------------------------------------------------------------------------- reductions
REDUCE_CASES = {   # name: (input shape, axes, keep_dims)
    "hw_keep": ((2, 5, 7, 21), [1, 2], True),          # the optimized 4-D mean (16 + 5 lanes)
    "hw_keep_rev": ((1, 4, 4, 32), [2, 1], True),
    "hw_nokeep": ((2, 5, 7, 21), [1, 2], False),
    "hw_negative": ((1, 3, 6, 17), [-3, -2], True),    # general path: raw axes are not 1, 2
    "last": ((3, 4, 37), [2], False),
    "first_keep": ((6, 4, 5), [0], True),
    "all": ((2, 3, 4, 5), [0, 1, 2, 3], False),
    "mid_pair": ((2, 9, 3, 4), [1, 3], True),
}


# (input scale, output scale) ratios
RATIOS = {"same": 1.0, "down": 0.37, "up": 3.1}


def reduce_model(op, case, dtype, ratio, ozp_shift=0):
    """case: a REDUCE_CASES name or an (input shape, axes, keep_dims) triple."""
    shape, axes, keep = REDUCE_CASES[case] if isinstance(case, str) else case
    rank = len(shape)
    norm = {a % rank for a in axes}
    out = tuple(1 if i in norm else d for i, d in enumerate(shape) if keep or i not in norm)
    _, scale, zp = QTYPES[dtype]
    ozp = zp if dtype == "int16" else zp + ozp_shift
    return shape, single_op_model(op, [qspec("x", shape, dtype, scale, zp),
                                       np.array(axes, np.int32)],
                                  [qspec("y", out, dtype, scale * ratio, ozp)], keep_dims=keep)
