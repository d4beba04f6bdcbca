"""Shape rules of the data-movement, segment/scatter, misc and random ops (ADD_N, RANK,
BROADCAST_ARGS, REVERSE_V2, REVERSE_SEQUENCE, CUMSUM, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND,
SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_*, SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, BUCKETIZE,
BITWISE_XOR, RIGHT_SHIFT, EMBEDDING_LOOKUP, MATRIX_DIAG, MATRIX_SET_DIAG, RANDOM_*,
MULTINOMIAL). MIRROR_PAD, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION have theirs in
shape_inference."""
from __future__ import annotations

import numpy as np

from .shape_inference import broadcast, rule


def _ints(a: np.ndarray) -> list[int]:
    return [int(x) for x in np.asarray(a).reshape(-1)]


@rule("AddN", "Reverse", "ReverseSequence", "Cumsum", "Bucketize", "MatrixSetDiag",
      "DynamicUpdateSlice")
def _first(op, shapes, v):
    return [shapes[0]]


@rule("BitwiseXor", "RightShift")
def _bcast(op, shapes, v):
    return [broadcast(shapes[0], shapes[1])]


@rule("Rank")
def _rank(op, shapes, v):
    return [()]


@rule("BroadcastArgs")
def _broadcast_args(op, shapes, v):
    a = tuple(_ints(v.need(op.inputs[0], "shape s0")))
    b = tuple(_ints(v.need(op.inputs[1], "shape s1")))
    return [(len(broadcast(a, b)),)]


def _block_params(op, shapes, v, what: str) -> tuple[list[int], np.ndarray]:
    block = _ints(v.need(op.inputs[1], "block_shape"))
    pads = np.asarray(v.need(op.inputs[2], what)).reshape(-1, 2).astype(np.int64)
    if len(block) != pads.shape[0] or len(block) > len(shapes[0]) - 1:
        raise ValueError(f"block_shape {block} and {what} {pads.tolist()} do not fit input "
                         f"{shapes[0]}")
    if any(b < 1 for b in block):
        raise ValueError(f"block_shape {block} must be positive")
    return block, pads


@rule("SpaceToBatchND")
def _s2b(op, shapes, v):
    x = shapes[0]
    block, pads = _block_params(op, shapes, v, "paddings")
    spatial = []
    for k, b in enumerate(block):
        size = x[1 + k] + int(pads[k, 0]) + int(pads[k, 1])
        if size % b:
            raise ValueError(f"padded size {size} of dim {1 + k} is no multiple of block {b}")
        spatial.append(size // b)
    return [(x[0] * int(np.prod(block)),) + tuple(spatial) + tuple(x[1 + len(block):])]


@rule("BatchToSpaceND")
def _b2s(op, shapes, v):
    x = shapes[0]
    block, crops = _block_params(op, shapes, v, "crops")
    prod = int(np.prod(block))
    if x[0] % prod:
        raise ValueError(f"batch {x[0]} is no multiple of the block size {prod}")
    spatial = [x[1 + k] * b - int(crops[k, 0]) - int(crops[k, 1]) for k, b in enumerate(block)]
    return [(x[0] // prod,) + tuple(spatial) + tuple(x[1 + len(block):])]


@rule("ScatterND")
def _scatter_nd(op, shapes, v):
    return [tuple(_ints(v.need(op.inputs[2], "shape")))]


@rule("SegmentSum")
def _segment_sum(op, shapes, v):
    ids = _ints(v.need(op.inputs[1], "segment_ids"))
    n = max(ids) + 1 if ids else 0
    return [(n,) + tuple(shapes[0][1:])]


@rule("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
def _unsorted_segment(op, shapes, v):
    n = _ints(v.need(op.inputs[2], "num_segments"))[0]
    return [(n,) + tuple(shapes[0][len(shapes[1]):])]


@rule("SparseToDense")
def _sparse_to_dense(op, shapes, v):
    return [tuple(_ints(v.need(op.inputs[1], "output_shape")))]


@rule("EmbeddingLookup")
def _embedding_lookup(op, shapes, v):
    return [(int(np.prod(shapes[0])),) + tuple(shapes[1][1:])]


@rule("HashtableLookup")
def _hashtable_lookup(op, shapes, v):
    """(lookups[N], keys[K], values[K, ...]) -> (values[N, ...], hits[N])."""
    return [(shapes[0][0],) + tuple(shapes[2][1:]), (shapes[0][0],)]


@rule("MatrixDiag")
def _matrix_diag(op, shapes, v):
    return [tuple(shapes[0]) + (shapes[0][-1],)]


@rule("RandomUniform", "RandomStandardNormal")
def _random(op, shapes, v):
    return [tuple(_ints(v.need(op.inputs[0], "shape")))]


@rule("Multinomial")
def _multinomial(op, shapes, v):
    n = _ints(v.need(op.inputs[1], "num_samples"))[0]
    return [(shapes[0][0], n)]
