"""Slicing and splitting: SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, PACK, UNPACK.

Parameter inputs (begin/size, axis, size_splits, ...) that are constants are read once at
configure; others are read in every run(), since they may change while shapes stay the same.
"""
from __future__ import annotations

import numpy as np

from ....core.compiler.shape_rules_indexing import split_sizes, strided_slice_plan
from .common import ANY, CpuKernel, register


class MoveKernel(CpuKernel):
    """Data movement: any dtype, quantized ones included (values move unchanged). `data` is
    the input whose dtype decides support."""

    dtypes = ANY
    quantized = True
    data = 0
    index_inputs: tuple[int, ...] = ()     # parameter inputs that must be int32/int64

    def validate(self) -> None:
        """The default check: index parameters are int32/int64, outputs have the data's dtype."""
        self.check_index_dtype(*self.index_inputs)
        self.check_same_dtype(self.data)

    def const(self, i: int) -> np.ndarray | None:
        """Input i's data when it is a constant, else None (read it in run())."""
        t = self.inputs[i] if i < len(self.inputs) else None
        return t.buffer if t is not None and t.is_constant else None

    def scalar(self, i: int) -> int:
        """Input i's first element as an int (a scalar or one-element parameter)."""
        return int(self.inputs[i].buffer.reshape(-1)[0])

    def static(self, i: int) -> bool:
        """Whether input i's shape is known at configure time."""
        t = self.inputs[i]
        return t is not None and not t.is_dynamic

    def check_index_dtype(self, *inputs: int, allowed=(np.int32, np.int64)) -> None:
        for i in inputs:
            t = self.inputs[i]
            if t is not None and t.dtype not in [np.dtype(a) for a in allowed]:
                names = "/".join(np.dtype(a).name for a in allowed)
                raise self.fail(f"input {i} must be {names}, not {t.dtype}")

    def check_same_dtype(self, a: int, *outputs: int) -> None:
        for o in outputs or range(len(self.outputs)):
            if self.outputs[o].dtype != self.inputs[a].dtype:
                raise self.fail(f"output {o} has dtype {self.outputs[o].dtype}, the input "
                                f"{self.inputs[a].dtype}")


def copy_checked(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src, refusing to broadcast (a shape mismatch is a bug, not a broadcast)."""
    if dst.shape != src.shape:
        raise ValueError(f"computed a result of shape {src.shape} for an output of shape "
                         f"{dst.shape}")
    np.copyto(dst, src)


@register("Split")
class SplitLayer(MoveKernel):
    """inputs (axis, x); num_splits equal parts along axis."""

    data = 1

    def validate(self) -> None:
        self.check_index_dtype(0)
        self.check_same_dtype(1)
        self.axis = None if self.const(0) is None else self.scalar(0)
        if self.axis is not None and self.static(1):
            rank = len(self.inputs[1].shape)
            if not -rank <= self.axis < rank:
                raise self.fail(f"axis {self.axis} out of range for rank {rank}")

    def views(self, axis: int) -> list[np.ndarray]:
        return np.split(self.buf(1), len(self.outputs), axis=axis)

    def prepare(self) -> None:
        self.parts = None if self.axis is None else self.views(self.axis)

    def run(self) -> None:
        parts = self.parts if self.parts is not None else self.views(self.scalar(0))
        for o, part in zip(self.outputs, parts):
            copy_checked(o.buffer, part)


@register("SplitV")
class SplitVLayer(MoveKernel):
    """inputs (x, size_splits, axis); one -1 size takes the rest."""

    def validate(self) -> None:
        self.check_index_dtype(1)
        self.check_index_dtype(2, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.fixed = self.const(1) is not None and self.const(2) is not None

    def views(self) -> list[np.ndarray]:
        x = self.buf(0)
        axis = self.scalar(2)
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"axis {axis} out of range for rank {x.ndim}")
        sizes = split_sizes([int(s) for s in self.buf(1).reshape(-1)], x.shape[axis])
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)

    def prepare(self) -> None:
        self.parts = self.views() if self.fixed else None

    def run(self) -> None:
        parts = self.parts if self.parts is not None else self.views()
        for o, part in zip(self.outputs, parts):
            copy_checked(o.buffer, part)


@register("Slice")
class SliceLayer(MoveKernel):
    """inputs (x, begin, size); the output shape holds the size (-1 resolved)."""

    def validate(self) -> None:
        self.check_index_dtype(1, 2)
        self.check_same_dtype(0)
        self.fixed = self.const(1) is not None

    def view(self) -> np.ndarray:
        x, out = self.buf(0), self.out
        begin = [int(b) for b in self.buf(1).reshape(-1)]
        if len(begin) != x.ndim or out.ndim != x.ndim:
            raise ValueError(f"slice begin {begin} does not fit the input shape {x.shape}")
        for b, s, d in zip(begin, out.shape, x.shape):
            if b < 0 or b + s > d:
                raise ValueError(f"slice begin {begin} with size {out.shape} is out of bounds "
                                 f"for the input shape {x.shape}")
        return x[tuple(slice(b, b + s) for b, s in zip(begin, out.shape))]

    def prepare(self) -> None:
        self.src = self.view() if self.fixed else None

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.src if self.src is not None else self.view())


@register("StridedSlice")
class StridedSliceLayer(MoveKernel):
    """inputs (x, begin, end, strides) with TFLite's masks and offset."""

    def validate(self) -> None:
        self.check_index_dtype(1, 2, 3, allowed=(np.int32,))
        self.check_same_dtype(0)
        self.fixed = all(self.const(i) is not None for i in (1, 2, 3))

    def view(self) -> np.ndarray:
        x = self.buf(0)
        plan = strided_slice_plan(x.shape, self.buf(1), self.buf(2), self.buf(3),
                                  self.op.params)
        if plan.shape != self.out.shape:
            raise ValueError(f"strided slice gives {plan.shape}, the output is "
                             f"{self.out.shape}")
        return x.reshape(plan.effective)[plan.index]

    def prepare(self) -> None:
        if self.fixed:
            try:
                self.src = self.view()
            except ValueError as e:
                raise self.fail(str(e)) from None
        else:
            self.src = None

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.src if self.src is not None else self.view())


@register("Pack")
class PackLayer(MoveKernel):
    def validate(self) -> None:
        for i, t in enumerate(self.inputs):
            if t.dtype != self.inputs[0].dtype:
                raise self.fail(f"input {i} has dtype {t.dtype}, input 0 {self.inputs[0].dtype}")
        self.check_same_dtype(0)
        rank = len(self.outputs[0].shape) if not self.outputs[0].is_dynamic else None
        self.axis = int(self.op.params.get("axis", 0))
        if rank is not None and not -rank <= self.axis < rank:
            raise self.fail(f"axis {self.axis} out of range for output rank {rank}")

    def prepare(self) -> None:
        self.srcs = [t.buffer for t in self.inputs]

    def run(self) -> None:
        np.stack(self.srcs, axis=self.axis, out=self.outputs[0].buffer)


@register("Unpack")
class UnpackLayer(MoveKernel):
    def validate(self) -> None:
        self.check_same_dtype(0)
        self.axis = int(self.op.params.get("axis", 0))
        if self.static(0):
            shape = self.inputs[0].shape
            if not -len(shape) <= self.axis < len(shape):
                raise self.fail(f"axis {self.axis} out of range for rank {len(shape)}")
            if shape[self.axis] != len(self.outputs):
                raise self.fail(f"cannot unpack dimension {shape[self.axis]} into "
                                f"{len(self.outputs)} outputs")

    def prepare(self) -> None:
        x = self.buf(0)
        axis = self.axis % x.ndim
        self.pairs = [(o.buffer, x[(slice(None),) * axis + (k,)])
                      for k, o in enumerate(self.outputs)]

    def run(self) -> None:
        for dst, src in self.pairs:
            np.copyto(dst, src)
