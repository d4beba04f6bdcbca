"""Shape rules of the indexing and data-movement ops whose shapes follow their parameters:
GATHER, GATHER_ND, SELECT, SELECT_V2, SPLIT, SPLIT_V, PACK, UNPACK, SLICE, STRIDED_SLICE,
SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_*,
SPARSE_TO_DENSE, EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, MATRIX_DIAG. (RESHAPE, TRANSPOSE,
CONCATENATION, PAD, DEPTH_TO_SPACE and friends are in shape_inference.)

`split_sizes` and `strided_slice_plan` are shared with the kernels: the rule and the kernels
must agree on every bound, so they all take them from here."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .shape_inference import Dynamic, broadcast, rule


def ints(a) -> list[int]:
    """The values of an index tensor as Python ints (the kernels' too: core/ops/movement.py)."""
    return [int(d) for d in np.asarray(a).reshape(-1)]


def scalar(a):
    """The first value of a scalar or one-element tensor as a Python number."""
    return np.asarray(a).reshape(-1)[0].item()


def norm_axis(axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [0, rank) (negative counts from the end); ValueError when out of range."""
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} out of range for rank {rank}")
    return axis % rank


@rule("Gather")
def _gather(op, shapes, v):
    params, indices = shapes[0], shapes[1]
    axis = norm_axis(int(op.params.get("axis", 0)), len(params))
    b = int(op.params.get("batch_dims", 0))
    b = b + len(indices) if b < 0 else b
    if not 0 <= b <= min(axis, len(indices)):
        raise ValueError(f"batch_dims {b} must be in [0, min(axis {axis}, indices rank)]")
    if tuple(params[:b]) != tuple(indices[:b]):
        raise ValueError(f"batch dims of params {params} and indices {indices} differ")
    return [tuple(params[:axis]) + tuple(indices[b:]) + tuple(params[axis + 1:])]


@rule("GatherND")
def _gather_nd(op, shapes, v):
    params, indices = shapes[0], shapes[1]
    k = indices[-1]
    if k > len(params):
        raise ValueError(f"index depth {k} exceeds the params rank {len(params)}")
    return [tuple(indices[:-1]) + tuple(params[k:])]


@rule("Select")
def _select(op, shapes, v):
    cond, x, y = shapes
    if tuple(x) != tuple(y):
        raise ValueError(f"SELECT needs x and y of one shape, got {x} and {y}")
    if tuple(cond) != tuple(x) and not (len(cond) == 0 or (len(cond) == 1 and x and
                                                           cond[0] == x[0])):
        raise ValueError(f"SELECT condition {cond} must match {x}, be a scalar or be rank 1 "
                         f"of the first dimension")
    return [tuple(x)]


@rule("SelectV2")
def _select_v2(op, shapes, v):
    return [broadcast(broadcast(shapes[0], shapes[1]), shapes[2])]


@rule("Split")
def _split(op, shapes, v):
    x = shapes[1]
    axis = norm_axis(int(scalar(v.need(op.inputs[0], "the split axis"))), len(x))
    n = int(op.params.num_splits)
    if n <= 0 or x[axis] % n:
        raise ValueError(f"dimension {x[axis]} does not split into {n} equal parts")
    part = tuple(d // n if i == axis else d for i, d in enumerate(x))
    return [part] * len(op.outputs)


def split_sizes(sizes: list[int], total: int) -> list[int]:
    """SPLIT_V sizes with one -1 resolved to the remainder; ValueError when they do not sum."""
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in sizes):
        raise ValueError(f"size_splits {sizes}: at most one -1 and no other negative size")
    if unknown:
        rest = total - sum(s for s in sizes if s != -1)
        if rest < 0:
            raise ValueError(f"size_splits {sizes} exceed the dimension {total}")
        sizes = list(sizes)
        sizes[unknown[0]] = rest
    if sum(sizes) != total:
        raise ValueError(f"size_splits {sizes} do not add up to the dimension {total}")
    return sizes


@rule("SplitV")
def _split_v(op, shapes, v):
    x = shapes[0]
    axis = norm_axis(int(scalar(v.need(op.inputs[2], "the split axis"))), len(x))
    sizes = split_sizes(ints(v.need(op.inputs[1], "size_splits")), x[axis])
    if len(sizes) != len(op.outputs):
        raise ValueError(f"{len(sizes)} split sizes for {len(op.outputs)} outputs")
    return [tuple(s if i == axis else d for i, d in enumerate(x)) for s in sizes]


@rule("Pack")
def _pack(op, shapes, v):
    first = tuple(shapes[0])
    if any(tuple(s) != first for s in shapes):
        raise ValueError(f"PACK inputs differ in shape: {shapes}")
    axis = norm_axis(int(op.params.get("axis", 0)), len(first) + 1)
    return [first[:axis] + (len(shapes),) + first[axis:]]


@rule("Unpack")
def _unpack(op, shapes, v):
    x = tuple(shapes[0])
    axis = norm_axis(int(op.params.get("axis", 0)), len(x))
    if x[axis] != len(op.outputs):
        raise ValueError(f"UNPACK of dimension {x[axis]} into {len(op.outputs)} outputs")
    return [x[:axis] + x[axis + 1:]] * len(op.outputs)


def slice_sizes(begin: list[int], size: list[int], shape) -> list[int]:
    """SLICE's output shape: size -1 means "to the end"; ValueError when out of bounds."""
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"begin {begin} and size {size} must have one entry per dimension "
                         f"of {tuple(shape)}")
    out = []
    for b, s, d in zip(begin, size, shape):
        s = d - b if s == -1 else s
        if b < 0 or s < 0 or b + s > d:
            raise ValueError(f"slice begin {begin} size {size} out of bounds for {tuple(shape)}")
        out.append(s)
    return out


@rule("Slice")
def _slice(op, shapes, v):
    size = ints(v.need(op.inputs[2], "the slice size"))
    if -1 in size:
        begin = ints(v.need(op.inputs[1], "the slice begin"))
    else:    # the begin only matters for bounds then; the kernel checks them
        value = v.value(op.inputs[1])
        begin = [0] * len(size) if value is None else ints(value)
    return [tuple(slice_sizes(begin, size, shapes[0]))]


class StridedSlicePlan(NamedTuple):
    """How STRIDED_SLICE reads its input: reshape to `effective` (new axes inserted), index
    with `index` (slices, and ints for shrunk axes), giving `shape`."""
    effective: tuple[int, ...]
    index: tuple
    shape: tuple[int, ...]


def strided_slice_plan(x_shape, begin, end, strides, p) -> StridedSlicePlan:
    """TFLite's STRIDED_SLICE bounds. `p` holds the masks and `offset`; begin may be None
    only with offset (the shape does not depend on it then; the index is not usable)."""
    end, strides = ints(end), ints(strides)
    offset = bool(p.get("offset", False))
    begin = [0] * len(end) if begin is None else ints(begin)
    n = len(begin)
    if len(end) != n or len(strides) != n:
        raise ValueError(f"begin, end and strides differ in length: {n}, {len(end)}, "
                         f"{len(strides)}")
    bm, em = int(p.get("begin_mask", 0)), int(p.get("end_mask", 0))
    ellipsis, new_axis = int(p.get("ellipsis_mask", 0)), int(p.get("new_axis_mask", 0))
    shrink = int(p.get("shrink_axis_mask", 0))
    rank = len(x_shape)
    n_new = sum(1 for i in range(n) if new_axis >> i & 1 and not ellipsis >> i & 1)
    dims = rank + n_new
    # Spread the (at most one) ellipsis over the dimensions the spec does not name.
    kinds: list[tuple[str, int]] = []     # per effective dim: (kind, spec index)
    i = spec = 0
    while i < dims:
        if spec < n and ellipsis >> spec & 1:
            span = max(1, min(1 + n_new + rank - n, dims - i))
            kinds += [("all", -1)] * span
            i, spec = i + span, spec + 1
            continue
        if spec < n and new_axis >> spec & 1:
            kinds.append(("new", spec))
        elif spec < n:
            kinds.append(("spec", spec))
        else:
            kinds.append(("all", -1))
        i, spec = i + 1, spec + 1
    effective, index, shape = [], [], []
    src = 0
    for kind, s in kinds:
        if kind == "new":
            effective.append(1)
            index.append(slice(0, 1, 1))
            shape.append(1)
            continue
        size = int(x_shape[src])
        src += 1
        effective.append(size)
        if kind == "all":
            index.append(slice(None))
            shape.append(size)
            continue
        stride = strides[s]
        if stride == 0:
            raise ValueError("strided slice stride must be non-zero")
        start = begin[s] + size if begin[s] < 0 else begin[s]
        start = min(max(start, 0), size) if stride > 0 else min(max(start, -1), size - 1)
        if bm >> s & 1:
            start = 0 if stride > 0 else size - 1
        if shrink >> s & 1:
            if not 0 <= start < size:
                raise ValueError(f"shrunk axis index {begin[s]} out of range for size {size}")
            index.append(start)
            continue
        stop = end[s] + start if offset else end[s]
        stop = stop + size if stop < 0 else stop
        stop = min(max(stop, 0), size) if stride > 0 else min(max(stop, -1), size - 1)
        if em >> s & 1:
            stop = size if stride > 0 else -1
        length = max(0, -((start - stop) // stride))       # ceil((stop - start) / stride)
        if offset:
            declared = max(0, -(-end[s] // stride))
            if declared != length:
                raise ValueError(f"strided slice with offset: begin {begin[s]} + end {end[s]} "
                                 f"runs past the dimension {size}")
        if length == 0:
            index.append(slice(0, 0, 1))
        else:
            index.append(slice(start, stop if stop >= 0 else None, stride))
        shape.append(length)
    return StridedSlicePlan(tuple(effective), tuple(index), tuple(shape))


@rule("StridedSlice")
def _strided_slice(op, shapes, v):
    strides = v.need(op.inputs[3], "the strides")
    end = v.need(op.inputs[2], "the end")
    begin = v.value(op.inputs[1])
    if begin is None and not op.params.get("offset", False):
        raise Dynamic("the begin is not constant")
    # with offset a missing begin is fine: the shape follows end and strides alone
    return [strided_slice_plan(shapes[0], begin, end, strides, op.params).shape]


def _block_params(op, shapes, v, what: str) -> tuple[list[int], np.ndarray]:
    block = ints(v.need(op.inputs[1], "block_shape"))
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
    return [tuple(ints(v.need(op.inputs[2], "shape")))]


@rule("SegmentSum")
def _segment_sum(op, shapes, v):
    ids = ints(v.need(op.inputs[1], "segment_ids"))
    n = max(ids) + 1 if ids else 0
    return [(n,) + tuple(shapes[0][1:])]


@rule("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
def _unsorted_segment(op, shapes, v):
    n = ints(v.need(op.inputs[2], "num_segments"))[0]
    return [(n,) + tuple(shapes[0][len(shapes[1]):])]


@rule("SparseToDense")
def _sparse_to_dense(op, shapes, v):
    return [tuple(ints(v.need(op.inputs[1], "output_shape")))]


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
