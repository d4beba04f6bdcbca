"""Quantized data-movement models (RESHAPE, SQUEEZE, TRANSPOSE, SLICE, GATHER, SPLIT, TILE,
SPACE_TO_DEPTH, ..., CONCATENATION) on the activations of builders.quant.QTYPES."""
from __future__ import annotations

import numpy as np

from onert_py.model_builder import single_op_model
from builders.quant import QTYPES, qspec

I32 = np.int32


def q(name, shape, dtype, zp_shift=0, scale_mul=1.0):
    _, scale, zp = QTYPES[dtype]
    return qspec(name, shape, dtype, scale * scale_mul, zp + (0 if dtype == "int16" else zp_shift))


# name: (op, input shape, constant inputs, output shapes, options)
CASES = {
    "reshape": ("RESHAPE", (2, 3, 4), [np.array([4, 6], I32)], [(4, 6)], {}),
    "squeeze": ("SQUEEZE", (1, 3, 1, 4), [], [(3, 4)], {"squeeze_dims": [0, 2]}),
    "expand_dims": ("EXPAND_DIMS", (3, 4), [np.array([1], I32)], [(3, 1, 4)], {}),
    "transpose": ("TRANSPOSE", (2, 3, 4), [np.array([2, 0, 1], I32)], [(4, 2, 3)], {}),
    "slice": ("SLICE", (4, 5, 3), [np.array([1, 0, 1], I32), np.array([2, -1, 2], I32)],
              [(2, 5, 2)], {}),
    "strided_slice": ("STRIDED_SLICE", (6, 7), [np.array([1, 6], I32), np.array([6, 0], I32),
                                                np.array([2, -2], I32)], [(3, 3)], {}),
    "gather": ("GATHER", (5, 4), [np.array([4, 0, 2, 2], I32)], [(4, 4)], {"axis": 0}),
    "split": ("SPLIT", (6, 4), None, [(6, 2), (6, 2)], {"num_splits": 2}),
    "split_v": ("SPLIT_V", (6, 4), [np.array([1, 3], I32), np.array(1, I32)],
                [(6, 1), (6, 3)], {"num_splits": 2}),
    "unpack": ("UNPACK", (3, 4), [], [(4,), (4,), (4,)], {"num": 3, "axis": 0}),
    "tile": ("TILE", (2, 3), [np.array([2, 2], I32)], [(4, 6)], {}),
    "space_to_depth": ("SPACE_TO_DEPTH", (1, 4, 4, 2), [], [(1, 2, 2, 8)], {"block_size": 2}),
    "depth_to_space": ("DEPTH_TO_SPACE", (1, 2, 2, 8), [], [(1, 4, 4, 2)], {"block_size": 2}),
    "batch_to_space": ("BATCH_TO_SPACE_ND", (4, 2, 2, 3),
                       [np.array([2, 2], I32), np.array([[0, 0], [0, 0]], I32)],
                       [(1, 4, 4, 3)], {}),
    "mirror_pad": ("MIRROR_PAD", (3, 4), [np.array([[1, 2], [2, 1]], I32)], [(6, 7)],
                   {"mode": "REFLECT"}),
    "reverse": ("REVERSE_V2", (3, 4, 2), [np.array([1], I32)], [(3, 4, 2)], {}),
    "broadcast_to": ("BROADCAST_TO", (1, 4), [np.array([3, 4], I32)], [(3, 4)], {"version": 2}),
}


def case_model(name, dtype, zp_shift=0):
    op, shape, consts, outs, opts = CASES[name]
    if name == "split":                       # SPLIT takes its axis first
        inputs = [np.array(1, I32), q("x", shape, dtype)]
    else:
        inputs = [q("x", shape, dtype)] + list(consts)
    outputs = [q(f"y{i}", s, dtype, zp_shift) for i, s in enumerate(outs)]
    return shape, single_op_model(op, inputs, outputs, **opts)


def concat_model(shapes, axis, dtype, qins, qout):
    """CONCATENATION of inputs of `shapes` along `axis`; qins (one per input) and qout are
    (scale, zero_point)."""
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    ins = [qspec(f"x{k}", s, dtype, *p) for k, (s, p) in enumerate(zip(shapes, qins))]
    return single_op_model("CONCATENATION", ins, [qspec("y", out_shape, dtype, *qout)],
                           axis=axis)


def concat_case(dtype, params):
    """(input shapes, model): three inputs joined on axis 1, with `params` (scale, zero_point)
    each; the output has QTYPES[dtype]'s."""
    shapes = [(2, 3), (2, 1), (2, 4)]
    return shapes, concat_model(shapes, 1, dtype, params, QTYPES[dtype][1:])
