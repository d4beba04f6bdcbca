"""Static shape inference: output shapes from input shapes (and constant inputs), per op type.

Run over a lowered subgraph in execution order after the input shapes are fixed. An op type
without a rule keeps the shapes the model file declares, which is right as long as its input
shapes are the declared ones; otherwise compiling fails and says which op lacks a rule.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import CompileError
from ..ir import Graph, Operation

Shape = tuple[int, ...]
Rule = Callable[[Operation, list, Graph], list[Shape]]
RULES: dict[str, Rule] = {}


def rule(*types: str) -> Callable[[Rule], Rule]:
    def deco(fn: Rule) -> Rule:
        for t in types:
            RULES[t] = fn
        return fn
    return deco


def const(graph: Graph, index: int) -> np.ndarray | None:
    if index < 0:
        return None
    return graph.operands[index].data


def broadcast(a: Shape, b: Shape) -> Shape:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        raise ValueError(f"shapes {a} and {b} do not broadcast") from None


def conv_out(size: int, k: int, stride: int, dilation: int, padding: str) -> int:
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        return (size + stride - 1) // stride
    return (size - eff + stride) // stride


@rule("ElementwiseActivation", "ElementwiseUnary", "Permute", "Softmax", "LogSoftmax",
      "L2Normalization", "LocalResponseNormalization", "InstanceNorm", "RmsNorm", "PReLU",
      "Densify", "ZerosLike")
def _same(op, shapes, g):
    return [shapes[0]]


@rule("BinaryArithmetic", "ElementwiseBinary", "Comparison", "SquaredDifference")
def _broadcast(op, shapes, g):
    return [broadcast(shapes[0], shapes[1])]


def spatial(op: Operation, x: Shape, kh: int, kw: int, dh: int, dw: int, channels: int) -> Shape:
    """NHWC output of a sliding-window op (convolution, pooling) with the op's strides/padding."""
    p = op.params
    n, h, w, _ = x
    return (n, conv_out(h, kh, p.stride_h, dh, p.padding), conv_out(w, kw, p.stride_w, dw, p.padding),
            channels)


@rule("Conv2D")
def _conv(op, shapes, g):
    cout, kh, kw, _ = shapes[1]
    return [spatial(op, shapes[0], kh, kw, op.params.dilation_h_factor,
                    op.params.dilation_w_factor, cout)]


@rule("DepthwiseConv2D")
def _dwconv(op, shapes, g):
    _, kh, kw, cout = shapes[1]
    return [spatial(op, shapes[0], kh, kw, op.params.dilation_h_factor,
                    op.params.dilation_w_factor, cout)]


@rule("Pool2D")
def _pool(op, shapes, g):
    p = op.params
    return [spatial(op, shapes[0], p.filter_height, p.filter_width, 1, 1, shapes[0][3])]


@rule("FullyConnected")
def _fc(op, shapes, g):
    x, w = shapes[0], shapes[1]
    units = w[0]
    if op.params.get("keep_num_dims", False):
        return [tuple(x[:-1]) + (units,)]
    batch = int(np.prod(x)) // w[1] if w[1] else 0
    return [(batch, units)]


@rule("Reshape")
def _reshape(op, shapes, g):
    new = const(g, op.inputs[1]) if len(op.inputs) > 1 else None
    target = [int(v) for v in new.reshape(-1)] if new is not None else list(op.params.get("new_shape") or [])
    if new is None and len(op.inputs) > 1 and not target:
        raise KeyError("shape input is not constant")
    total = int(np.prod(shapes[0]))
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = total // known if known else 0
    if int(np.prod(target)) != total:
        raise ValueError(f"cannot reshape {shapes[0]} to {tuple(target)}")
    return [tuple(target)]


@rule("Transpose")
def _transpose(op, shapes, g):
    perm = const(g, op.inputs[1])
    if perm is None:
        raise KeyError("perm is not constant")
    return [tuple(shapes[0][int(p)] for p in perm)]


@rule("Squeeze")
def _squeeze(op, shapes, g):
    shape = shapes[0]
    rank = len(shape)
    dims = [int(d) for d in op.params.get("squeeze_dims") or []]
    if any(not -rank <= d < rank for d in dims):
        raise ValueError(f"squeeze_dims {dims} out of range for rank {rank}")
    drop = {d % rank for d in dims} if dims else {i for i, d in enumerate(shape) if d == 1}
    if any(shape[i] != 1 for i in drop):
        raise ValueError(f"cannot squeeze dims {sorted(drop)} of {shape}: not all of size 1")
    return [tuple(d for i, d in enumerate(shape) if i not in drop)]


@rule("ExpandDims")
def _expand_dims(op, shapes, g):
    axis = const(g, op.inputs[1])
    rank = len(shapes[0])
    if axis is None:    # computed at run time: the declared shape, if it still fits the input
        declared = tuple(g.operands[op.outputs[0]].shape)
        if len(declared) == rank + 1 and np.prod(declared) == np.prod(shapes[0]):
            return [declared]
        raise KeyError("axis is not constant")
    a = int(axis.reshape(-1)[0])
    if not -rank - 1 <= a <= rank:
        raise ValueError(f"axis {a} out of range for rank {rank}")
    a = a + rank + 1 if a < 0 else a
    return [tuple(shapes[0][:a]) + (1,) + tuple(shapes[0][a:])]


@rule("BatchMatMul")
def _bmm(op, shapes, g):
    a, b = list(shapes[0]), list(shapes[1])
    if op.params.get("adj_x", False):
        a[-1], a[-2] = a[-2], a[-1]
    if op.params.get("adj_y", False):
        b[-1], b[-2] = b[-2], b[-1]
    return [broadcast(tuple(a[:-2]), tuple(b[:-2])) + (a[-2], b[-1])]


@rule("Reduce")
def _reduce(op, shapes, g):
    axes = const(g, op.inputs[1])
    if axes is None:
        raise KeyError("axes are not constant")
    rank = len(shapes[0])
    axes = {int(a) % rank for a in np.atleast_1d(axes)} if rank else set()
    keep = op.params.get("keep_dims", False)
    return [tuple(1 if i in axes else d for i, d in enumerate(shapes[0]) if keep or i not in axes)]


@rule("Concat")
def _concat(op, shapes, g):
    rank = len(shapes[0])
    axis = op.params.axis % rank
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    return [tuple(out)]


@rule("Pad", "PadV2", "MirrorPad")
def _pad(op, shapes, g):
    pads = const(g, op.inputs[1])
    if pads is None:
        raise KeyError("paddings are not constant")
    return [tuple(int(d + p[0] + p[1]) for d, p in zip(shapes[0], pads.reshape(-1, 2)))]


@rule("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(op, shapes, g):
    size = const(g, op.inputs[1])
    if size is None:
        raise KeyError("size is not constant")
    n, _, _, c = shapes[0]
    return [(n, int(size[0]), int(size[1]), c)]


@rule("DepthToSpace")
def _d2s(op, shapes, g):
    n, h, w, c = shapes[0]
    b = op.params.block_size
    return [(n, h * b, w * b, c // (b * b))]


@rule("SpaceToDepth")
def _s2d(op, shapes, g):
    n, h, w, c = shapes[0]
    b = op.params.block_size
    return [(n, h // b, w // b, c * b * b)]


def infer_shapes(graph: Graph, order: list[int], input_shapes: dict[int, tuple[int, ...]],
                 sg_index: int = 0) -> None:
    """Set every operand's shape in `graph` (a lowered copy), starting from `input_shapes`."""
    changed: set[int] = set()
    for i, shape in input_shapes.items():
        if tuple(graph.operands[i].shape) != tuple(shape):
            graph.operands[i].shape = tuple(shape)
            changed.add(i)
    for oi in order:
        op = graph.operations[oi]
        shapes = [graph.operands[i].shape if i >= 0 else None for i in op.inputs]
        fn = RULES.get(op.type)
        if fn is None:
            if any(i in changed for i in op.inputs):
                raise CompileError(f"subgraph {sg_index} op #{oi} {op.name}: its input shapes "
                                   f"changed, and shape inference for {op.type} is not "
                                   f"implemented; run with the model's declared input shapes")
            continue
        try:
            out = fn(op, shapes, graph)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
            raise CompileError(f"subgraph {sg_index} op #{oi} {op.name}: shape inference failed "
                               f"for input shapes {shapes}: {e}") from e
        for o, shape in zip(op.outputs, out):
            if o < 0:
                continue
            shape = tuple(int(d) for d in shape)
            if any(d < 0 for d in shape):
                raise CompileError(f"subgraph {sg_index} op #{oi} {op.name}: inferred a negative "
                                   f"dimension {shape} from input shapes {shapes}")
            if graph.operands[o].shape != shape:
                graph.operands[o].shape = shape
                changed.add(o)
