"""Shape rules of the ops whose output shapes come from input values: SHAPE, RANK, RANGE,
FILL, BROADCAST_TO, BROADCAST_ARGS, TILE, ONE_HOT, ARG_MIN/ARG_MAX and TOPK_V2 (their axis or
k), NON_MAX_SUPPRESSION_V4/V5 (max_output_size), RANDOM_* and MULTINOMIAL; WHERE and UNIQUE,
whose shapes depend on the data itself, are dynamic."""
from __future__ import annotations

import numpy as np

from .shape_inference import Dynamic, broadcast, rule
from .shape_rules_indexing import ints, scalar, norm_axis


@rule("Shape")
def _shape(op, shapes, v):
    return [(len(shapes[0]),)]


def range_length(start, limit, delta) -> int:
    """RANGE's element count, computed as TFLite does (float: in the values' precision)."""
    if delta == 0:
        raise ValueError("range delta must be non-zero")
    if (start < limit and delta < 0) or (start > limit and delta > 0):
        raise ValueError(f"range start {start}, limit {limit} and delta {delta} go nowhere")
    if isinstance(start, (np.integer, int)) and not isinstance(start, bool):
        return int((abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta)))
    return int(np.ceil(np.abs((limit - start) / delta)))


@rule("Range")
def _range(op, shapes, v):
    start = np.asarray(v.need(op.inputs[0], "the range start")).reshape(-1)[0]
    limit = np.asarray(v.need(op.inputs[1], "the range limit")).reshape(-1)[0]
    delta = np.asarray(v.need(op.inputs[2], "the range delta")).reshape(-1)[0]
    return [(range_length(start, limit, delta),)]


@rule("Fill")
def _fill(op, shapes, v):
    return [tuple(ints(v.need(op.inputs[0], "the fill dims")))]


@rule("BroadcastTo")
def _broadcast_to(op, shapes, v):
    target = tuple(ints(v.need(op.inputs[1], "the target shape")))
    if broadcast(tuple(shapes[0]), target) != target:
        raise ValueError(f"cannot broadcast {tuple(shapes[0])} to {target}")
    return [target]


@rule("Tile")
def _tile(op, shapes, v):
    m = ints(v.need(op.inputs[1], "the multiples"))
    if len(m) != len(shapes[0]) or any(k < 0 for k in m):
        raise ValueError(f"multiples {m} do not fit the input shape {tuple(shapes[0])}")
    return [tuple(d * k for d, k in zip(shapes[0], m))]


@rule("OneHot")
def _one_hot(op, shapes, v):
    depth = int(scalar(v.need(op.inputs[1], "the depth")))
    if depth < 0:
        raise ValueError(f"one-hot depth {depth} is negative")
    idx = tuple(shapes[0])
    axis = int(op.params.get("axis", -1))
    axis = norm_axis(axis, len(idx) + 1)
    return [idx[:axis] + (depth,) + idx[axis:]]


@rule("Where", "Unique")
def _data_dependent(op, shapes, v):
    raise Dynamic(f"the output shape of {op.type} depends on the data")


@rule("NonMaxSuppressionV4", "NonMaxSuppressionV5")
def _nms(op, shapes, v):
    m = int(scalar(v.need(op.inputs[2], "max_output_size")))
    if m < 0:
        raise ValueError(f"max_output_size {m} is negative")
    if op.type == "NonMaxSuppressionV4":
        return [(m,), ()]
    return [(m,), (m,), ()]


@rule("ArgMinMax")
def _arg_min_max(op, shapes, v):
    x = tuple(shapes[0])
    axis = norm_axis(int(scalar(v.need(op.inputs[1], "the axis"))), len(x))
    return [x[:axis] + x[axis + 1:]]


@rule("TopKV2")
def _top_k(op, shapes, v):
    x = tuple(shapes[0])
    k = int(scalar(v.need(op.inputs[1], "k")))
    if not x or not 0 <= k <= x[-1]:
        raise ValueError(f"top-k k={k} out of range for input shape {x}")
    return [x[:-1] + (k,)] * 2


@rule("Rank")
def _rank(op, shapes, v):
    return [()]


@rule("BroadcastArgs")
def _broadcast_args(op, shapes, v):
    a = tuple(ints(v.need(op.inputs[0], "shape s0")))
    b = tuple(ints(v.need(op.inputs[1], "shape s1")))
    return [(len(broadcast(a, b)),)]


@rule("RandomUniform", "RandomStandardNormal")
def _random(op, shapes, v):
    return [tuple(ints(v.need(op.inputs[0], "shape")))]


@rule("Multinomial")
def _multinomial(op, shapes, v):
    n = ints(v.need(op.inputs[1], "num_samples"))[0]
    return [(shapes[0][0], n)]
