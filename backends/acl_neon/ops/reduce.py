"""Float32 Reduce (SUM, MEAN, REDUCE_MAX/MIN/PROD over constant axes) on acl_neon, native group
`eltwise`: the axes and validation of core/ops/reduce.py, one native call per run; other forms
stay on cpu. Quantized MEAN: quant_reduce.py."""
from __future__ import annotations

from ....core.ops.reduce import ReduceBase
from .. import native
from .base import NeonMixin, float_io, register, size

MAX_RANK = 8


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


@register("Reduce")
class ReduceLayer(NeonMixin, ReduceBase):
    native_group = "eltwise"

    @classmethod
    def supports(cls, op, graph):
        ok, why = super().supports(op, graph)
        if ok:
            ok, why = float_io(op, graph, f"Reduce.{op.subtype}", const_axis=True)
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
