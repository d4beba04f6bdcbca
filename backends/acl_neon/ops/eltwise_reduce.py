"""Float32 Softmax (last axis, any rank), Reduce (SUM, MEAN, REDUCE_MAX/MIN/PROD over constant
axes) and ArgMinMax (constant axis) on acl_neon, native group `eltwise`. Each subclasses its
cpu kernel (same validation); other forms stay on cpu."""
from __future__ import annotations

import numpy as np

from ...cpu.ops.nms_topk import ArgMinMaxLayer
from ...cpu.ops.reduce_softmax import ReduceLayer, SoftmaxLayer
from .. import native
from .base import F32, NeonMixin, register, size

MAX_RANK = 8
MAX_ARG_LEN = 1 << 24         # indices travel as exact float32 lanes


def _float_io(op, graph, name: str, const_axis: bool = False) -> tuple[bool, str]:
    """A non-empty float32 input 0 (and, with `const_axis`, a constant axis input 1)."""
    x = graph.operands[op.inputs[0]]
    if x.dtype != F32:
        return False, f"acl_neon {name} takes float32 only"
    if size(x.shape) == 0:
        return False, f"acl_neon {name} has no kernel for empty tensors"
    if const_axis and (len(op.inputs) <= 1 or op.inputs[1] < 0 or
                       not graph.operands[op.inputs[1]].is_constant):
        return False, f"acl_neon {name} needs a constant axis input"
    return True, ""


def reduce_plan(shape, axes) -> tuple[list[int], list[int], list[int], list[int], bool]:
    """(kept shape, kept strides, reduced shape, reduced strides, last dim kept) of a
    C-contiguous input: size-1 dims dropped, neighbours of the same kind merged."""
    strides, acc = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = acc
        acc *= shape[d]
    dims: list[list] = []
    for d, n in enumerate(shape):
        if n == 1:
            continue
        red = d in axes
        if dims and dims[-1][2] == red:
            dims[-1] = [dims[-1][0] * n, strides[d], red]
        else:
            dims.append([n, strides[d], red])
    if not dims:
        dims = [[1, 1, False]]
    kept = [(n, s) for n, s, r in dims if not r]
    red = [(n, s) for n, s, r in dims if r]
    ks, kst = ([list(t) for t in zip(*kept)] if kept else ([], []))
    rs, rst = ([list(t) for t in zip(*red)] if red else ([], []))
    return ks, kst, rs, rst, not dims[-1][2]


@register("Softmax")
class NeonSoftmax(NeonMixin, SoftmaxLayer):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ok, why = _float_io(op, graph, "Softmax")
        if ok and len(graph.operands[op.inputs[0]].shape) == 0:
            return False, "acl_neon Softmax needs rank >= 1"
        return ok, why

    def prepare(self) -> None:
        shape = self.inputs[0].shape
        if len(shape) == 0 or self.outputs[0].shape != shape:
            raise self.fail(f"softmax input {shape} and output {self.outputs[0].shape}")
        n = int(shape[-1])
        beta = float(self.op.params.get("beta", 1.0))
        self.plan = self.lib.SoftmaxPlan(size(shape) // n, n, beta)


@register("Reduce")
class NeonReduce(NeonMixin, ReduceLayer):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok:
            ok, why = _float_io(op, graph, f"Reduce.{op.subtype}", const_axis=True)
        if ok and op.subtype not in native.module("eltwise").REDUCE_OPS:
            return False, f"acl_neon has no {op.subtype} kernel"
        return ok, why

    def prepare(self) -> None:
        super().prepare()              # normalized constant axes, checks
        shape = tuple(self.inputs[0].shape)
        if self.axes is None or size(shape) == 0:
            raise self.fail("acl_neon Reduce needs constant axes and a non-empty input")
        ks, kst, rs, rst, inner_kept = reduce_plan(shape, set(self.axes))
        if len(ks) > MAX_RANK or len(rs) > MAX_RANK:
            raise self.fail(f"acl_neon reduces at most {MAX_RANK} distinct dimensions")
        if size(self.outputs[0].shape) != size(ks):
            raise self.fail(f"output {self.outputs[0].shape} does not hold the reduced shape")
        lib = self.lib
        self.plan = lib.ReducePlan(lib.REDUCE_OPS.index(self.op.subtype), ks, kst, rs, rst,
                                   inner_kept)


@register("ArgMinMax")
class NeonArgMinMax(NeonMixin, ArgMinMaxLayer):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok:
            ok, why = _float_io(op, graph, op.subtype, const_axis=True)
        if ok and graph.operands[op.outputs[0]].dtype not in (np.int32, np.int64):
            return False, f"acl_neon {op.subtype} gives int32 or int64 only"
        return ok, why

    def prepare(self) -> None:
        shape = tuple(self.inputs[0].shape)
        if self.axis is None or not -len(shape) <= self.axis < len(shape):
            raise self.fail(f"acl_neon {self.op.subtype} needs a constant axis in range")
        axis = self.axis % len(shape)
        outer, length, inner = size(shape[:axis]), int(shape[axis]), size(shape[axis + 1:])
        if not 1 <= length <= MAX_ARG_LEN:
            raise self.fail(f"acl_neon {self.op.subtype} takes axes of 1..{MAX_ARG_LEN}")
        if size(self.outputs[0].shape) != outer * inner:
            raise self.fail(f"output {self.outputs[0].shape} does not match {shape}")
        self.plan = self.lib.ArgPlan(outer, length, inner, self.op.subtype == "ARG_MAX",
                                     self.outputs[0].dtype == np.int64)
