"""Shape inference: output shapes from input shapes (and input values), per op type.

A rule is `fn(op, shapes, v) -> [output shapes]`; `v.value(i)` is operand i's data (None when
not known) and `v.declared(i)` the shape the model file gives it. At compile time the values
are the constants; a rule that needs a value it cannot have raises `Dynamic`, and the op's
outputs become dynamic tensors, whose shapes the executor infers again at run time from the
actual data (same rules, `v.value` then reads the tensors). Ops whose output shape depends on
the result itself (Where, Unique, NMS) always raise Dynamic; their kernels size the outputs.

An op type without a rule keeps the shapes the model file declares, which is right as long as
its input shapes are the declared ones; otherwise compiling fails and says which op lacks one.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import CompileError
from ..ir import Graph, Operation

Shape = tuple[int, ...]
RULES: dict[str, Callable] = {}
MAX_ELEMENTS = (2**63 - 1) // 16      # bytes of the widest dtype (complex128) fit in int64


class Dynamic(Exception):
    """A rule cannot tell the output shape before run time (a value it needs is not constant,
    or the shape depends on the result)."""


class StaticValues:
    """Values known at compile time: the constants of a graph."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def value(self, index: int) -> np.ndarray | None:
        return None if index < 0 else self.graph.operands[index].data

    def declared(self, index: int) -> Shape:
        return tuple(self.graph.operands[index].shape)

    def need(self, index: int, what: str) -> np.ndarray:
        """The value of operand `index`; raises Dynamic (naming `what`) when not known."""
        data = self.value(index)
        if data is None:
            raise Dynamic(f"{what} is not constant")
        return data


def rule(*types: str) -> Callable:
    """Decorator: `fn` is the shape rule of these IR op types. A type has one rule: registering
    a second is an error (as KernelRegistry refuses a second kernel)."""
    def deco(fn: Callable) -> Callable:
        for t in types:
            if t in RULES:
                raise ValueError(f"shape rule for {t} registered twice ({RULES[t].__qualname__}, "
                                 f"{fn.__qualname__})")
            RULES[t] = fn
        return fn
    return deco


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
      "Densify", "ZerosLike", "AddN", "Reverse", "ReverseSequence", "Cumsum", "Bucketize",
      "MatrixSetDiag", "DynamicUpdateSlice")
def _same(op, shapes, v):
    return [shapes[0]]


@rule("BinaryArithmetic", "ElementwiseBinary", "Comparison", "SquaredDifference", "BitwiseXor",
      "RightShift")
def _broadcast(op, shapes, v):
    return [broadcast(shapes[0], shapes[1])]


def spatial(op: Operation, x: Shape, kh: int, kw: int, dh: int, dw: int, channels: int) -> Shape:
    """NHWC output of a sliding-window op (convolution, pooling) with the op's strides/padding."""
    p = op.params
    if len(x) != 4:
        raise ValueError(f"{op.name} needs a 4-D NHWC input, got shape {tuple(x)}")
    for name, value in (("stride_h", p.stride_h), ("stride_w", p.stride_w),
                        ("dilation_h_factor", dh), ("dilation_w_factor", dw),
                        ("filter height", kh), ("filter width", kw)):
        if value < 1:
            raise ValueError(f"{name} is {value}; it must be at least 1")
    n, h, w, _ = x
    return (n, conv_out(h, kh, p.stride_h, dh, p.padding), conv_out(w, kw, p.stride_w, dw, p.padding),
            channels)


@rule("DepthwiseConv2D")
def _dwconv(op, shapes, v):
    _, kh, kw, cout = shapes[1]
    return [spatial(op, shapes[0], kh, kw, op.params.dilation_h_factor,
                    op.params.dilation_w_factor, cout)]


@rule("Pool2D")
def _pool(op, shapes, v):
    p = op.params
    return [spatial(op, shapes[0], p.filter_height, p.filter_width, 1, 1, shapes[0][3])]


@rule("FullyConnected")
def _fc(op, shapes, v):
    x, w = shapes[0], shapes[1]
    units = w[0]
    if op.params.get("keep_num_dims", False):
        return [tuple(x[:-1]) + (units,)]
    batch = int(np.prod(x)) // w[1] if w[1] else 0
    return [(batch, units)]


@rule("Reshape")
def _reshape(op, shapes, v):
    if len(op.inputs) > 1 and op.inputs[1] >= 0:
        target = [int(d) for d in v.need(op.inputs[1], "the shape input").reshape(-1)]
    else:
        target = list(op.params.get("new_shape") or [])
    total = int(np.prod(shapes[0]))
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = total // known if known else 0
    if int(np.prod(target)) != total:
        raise ValueError(f"cannot reshape {shapes[0]} to {tuple(target)}")
    return [tuple(target)]


@rule("Transpose")
def _transpose(op, shapes, v):
    perm = v.need(op.inputs[1], "perm").reshape(-1)
    return [tuple(shapes[0][int(p)] for p in perm)]


@rule("Squeeze")
def _squeeze(op, shapes, v):
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
def _expand_dims(op, shapes, v):
    axis = v.need(op.inputs[1], "axis")
    rank = len(shapes[0])
    a = int(axis.reshape(-1)[0])
    if not -rank - 1 <= a <= rank:
        raise ValueError(f"axis {a} out of range for rank {rank}")
    a = a + rank + 1 if a < 0 else a
    return [tuple(shapes[0][:a]) + (1,) + tuple(shapes[0][a:])]


@rule("BatchMatMul")
def _bmm(op, shapes, v):
    a, b = list(shapes[0]), list(shapes[1])
    if op.params.get("adj_x", False):
        a[-1], a[-2] = a[-2], a[-1]
    if op.params.get("adj_y", False):
        b[-1], b[-2] = b[-2], b[-1]
    return [broadcast(tuple(a[:-2]), tuple(b[:-2])) + (a[-2], b[-1])]


@rule("Reduce")
def _reduce(op, shapes, v):
    axes = v.need(op.inputs[1], "axes")
    rank = len(shapes[0])
    axes = {int(a) % rank for a in np.atleast_1d(axes)} if rank else set()
    keep = op.params.get("keep_dims", False)
    return [tuple(1 if i in axes else d for i, d in enumerate(shapes[0]) if keep or i not in axes)]


@rule("Concat")
def _concat(op, shapes, v):
    rank = len(shapes[0])
    axis = op.params.axis % rank
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    return [tuple(out)]


@rule("Pad", "PadV2", "MirrorPad")
def _pad(op, shapes, v):
    pads = v.need(op.inputs[1], "paddings")
    return [tuple(int(d + p[0] + p[1]) for d, p in zip(shapes[0], pads.reshape(-1, 2)))]


@rule("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(op, shapes, v):
    size = v.need(op.inputs[1], "size").reshape(-1)
    n, _, _, c = shapes[0]
    return [(n, int(size[0]), int(size[1]), c)]


@rule("DepthToSpace")
def _d2s(op, shapes, v):
    n, h, w, c = shapes[0]
    b = op.params.block_size
    return [(n, h * b, w * b, c // (b * b))]


@rule("SpaceToDepth")
def _s2d(op, shapes, v):
    n, h, w, c = shapes[0]
    b = op.params.block_size
    return [(n, h // b, w // b, c * b * b)]


def infer_op(op: Operation, shapes: list, values) -> list[Shape]:
    """Output shapes of one op from its input shapes and a value accessor (see module doc).
    Raises Dynamic, KeyError (no rule), or ValueError/IndexError/... for inconsistent input."""
    fn = RULES.get(op.type)
    if fn is None:
        raise KeyError(f"shape inference for {op.type} is not implemented")
    out = [tuple(int(d) for d in s) for s in fn(op, shapes, values)]
    for shape in out:
        if any(d < 0 for d in shape):
            raise ValueError(f"inferred a negative dimension {shape}")
        if int(np.prod(shape, dtype=object)) > MAX_ELEMENTS:
            raise ValueError(f"inferred shape {shape} has more elements than a 64-bit size can "
                             f"count")
    return out


def infer_shapes(graph: Graph, order: list[int], input_shapes: dict[int, tuple[int, ...]],
                 sg_index: int = 0, control_flow: Callable | None = None) -> set[int]:
    """Set every operand's shape in `graph` (a lowered copy), starting from `input_shapes`;
    returns the operands whose shape is only known at run time (marked `dynamic`).
    `control_flow(op, shapes)` gives If/While output shapes (or raises Dynamic)."""
    changed: set[int] = set()
    dynamic: set[int] = {i for i in graph.inputs if graph.operands[i].dynamic}
    values = StaticValues(graph)
    for i, shape in input_shapes.items():
        if tuple(graph.operands[i].shape) != tuple(shape):
            graph.operands[i].shape = tuple(shape)
            changed.add(i)
    for oi in order:
        op = graph.operations[oi]
        shapes = [graph.operands[i].shape if i >= 0 else None for i in op.inputs]
        outs = [o for o in op.outputs if o >= 0]
        where = f"subgraph {sg_index} op #{oi} {op.name}"
        fn = control_flow if op.type in ("If", "While") and control_flow else RULES.get(op.type)
        if any(i in dynamic for i in op.inputs):
            if fn is None:
                raise CompileError(f"{where}: an input's shape is only known at run time, and "
                                   f"shape inference for {op.type} is not implemented")
            dynamic.update(outs)
            continue
        if fn is None:
            if any(i in changed for i in op.inputs):
                raise CompileError(f"{where}: its input shapes changed, and shape inference for "
                                   f"{op.type} is not implemented; run with the model's declared "
                                   f"input shapes")
            continue
        try:
            out = fn(op, shapes) if fn is control_flow else infer_op(op, shapes, values)
        except Dynamic:
            dynamic.update(outs)
            continue
        except (ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
            raise CompileError(f"{where}: shape inference failed for input shapes {shapes}: "
                               f"{e}") from e
        for o, shape in zip(op.outputs, out):     # infer_op checked the dims
            if o < 0:
                continue
            shape = tuple(shape)
            if graph.operands[o].shape != shape:
                graph.operands[o].shape = shape
                changed.add(o)
    for i in dynamic:
        graph.operands[i].dynamic = True
    return dynamic


# the other rules, registered on import: each module is named for the ops it holds
from . import shape_rules_indexing  # noqa: E402,F401
from . import shape_rules_values  # noqa: E402,F401
from . import shape_rules_conv  # noqa: E402,F401
from . import shape_rules_recurrent  # noqa: E402,F401
from . import shape_rules_circle  # noqa: E402,F401
from . import shape_rules_custom  # noqa: E402,F401
