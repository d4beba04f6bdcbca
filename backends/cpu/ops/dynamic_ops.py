"""Ops whose output shapes follow input values: SHAPE, RANGE, FILL, BROADCAST_TO, TILE,
ONE_HOT, and the ones whose shapes follow the result itself: WHERE, UNIQUE.

The executor sizes the outputs (from the shape rules) before run(), so these kernels take
sizes from their outputs and read only the values they need in run(). WHERE and UNIQUE set
`shape_from_run`: run() sizes their outputs."""
from __future__ import annotations

import numpy as np

from .common import register
from .slice_split import MoveKernel


@register("Shape")
class ShapeLayer(MoveKernel):
    def validate(self) -> None:
        if self.outputs[0].dtype not in (np.int32, np.int64):
            raise self.fail(f"SHAPE gives int32 or int64, not {self.outputs[0].dtype}")

    def run(self) -> None:
        self.outputs[0].buffer[...] = self.inputs[0].shape


@register("Range")
class RangeLayer(MoveKernel):
    """start, start + delta, ... below limit; floats accumulate as TFLite does (each value
    is the previous plus delta, rounded)."""

    @classmethod
    def supports(cls, op, graph):
        dtype = graph.operands[op.inputs[0]].dtype
        if dtype not in (np.int32, np.int64, np.float32):
            return False, f"{cls.backend_id} RANGE supports int32, int64 and float32, not {dtype}"
        return True, ""

    def validate(self) -> None:
        dtypes = {t.dtype for t in self.inputs} | {self.outputs[0].dtype}
        if len(dtypes) != 1:
            raise self.fail(f"start, limit, delta and output differ in dtype: "
                            f"{sorted(str(d) for d in dtypes)}")

    def run(self) -> None:
        out = self.outputs[0].buffer
        start, delta = self.buf(0).reshape(-1)[0], self.buf(2).reshape(-1)[0]
        if out.dtype.kind == "f":
            out.fill(delta)
            if out.size:
                out[0] = start
            np.add.accumulate(out, out=out)
        else:
            np.multiply(np.arange(out.size, dtype=out.dtype), delta, out=out)
            out += start


@register("Fill")
class FillLayer(MoveKernel):
    """inputs (dims, value): the output (of shape dims) holds value everywhere."""

    data = 1
    index_inputs = (0,)

    def run(self) -> None:
        self.outputs[0].buffer[...] = self.buf(1).reshape(())


@register("BroadcastTo")
class BroadcastToLayer(MoveKernel):
    index_inputs = (1,)

    def prepare(self) -> None:
        x, out = self.buf(0), self.out
        try:
            if np.broadcast_shapes(x.shape, out.shape) != out.shape:
                raise ValueError
        except ValueError:
            raise self.fail(f"cannot broadcast {x.shape} to {out.shape}") from None

    def run(self) -> None:
        np.copyto(self.outputs[0].buffer, self.inputs[0].buffer)


@register("Tile")
class TileLayer(MoveKernel):
    """The output seen as (m0, d0, m1, d1, ...) is the input (1, d0, 1, d1, ...) broadcast."""

    index_inputs = (1,)

    def prepare(self) -> None:
        x, out = self.buf(0), self.out
        if x.ndim != out.ndim:
            raise self.fail(f"cannot tile rank {x.ndim} to rank {out.ndim}")
        split, ones = [], []
        for d, o in zip(x.shape, out.shape):
            m = o // d if d else 1
            if m * d != o:
                raise self.fail(f"output {out.shape} is no tiling of {x.shape}")
            split += [m, d]
            ones += [1, d]
        self.dst = out.reshape(split)
        self.src = x.reshape(ones)

    def run(self) -> None:
        np.copyto(self.dst, self.src)


@register("OneHot")
class OneHotLayer(MoveKernel):
    """inputs (indices, depth, on_value, off_value); depth is the output's size on axis."""

    data = 2

    def validate(self) -> None:
        self.check_index_dtype(0, 1)
        if self.inputs[3].dtype != self.inputs[2].dtype:
            raise self.fail("on_value and off_value differ in dtype")
        self.check_same_dtype(2)

    def prepare(self) -> None:
        idx, out = self.buf(0), self.out
        axis = int(self.op.params.get("axis", -1)) % out.ndim
        self.idx_shape = idx.shape[:axis] + (1,) + idx.shape[axis:]
        self.depth = np.arange(out.shape[axis]).reshape(
            (-1,) + (1,) * (out.ndim - axis - 1))

    def run(self) -> None:
        out = self.outputs[0].buffer
        hot = self.inputs[0].buffer.reshape(self.idx_shape) == self.depth
        np.copyto(out, self.buf(3).reshape(()))
        np.copyto(out, self.buf(2).reshape(()), where=hot)


@register("Where")
class WhereLayer(MoveKernel):
    """The coordinates (int64, [n, rank]) of the true (non-zero) elements, row-major order."""

    shape_from_run = True

    def validate(self) -> None:
        if self.outputs[0].dtype != np.int64:
            raise self.fail(f"WHERE gives int64 coordinates, not {self.outputs[0].dtype}")

    def run(self) -> None:
        coords = np.argwhere(self.inputs[0].buffer)
        out = self.outputs[0]
        out.resize(coords.shape)
        out.buffer[...] = coords


@register("Unique")
class UniqueLayer(MoveKernel):
    """y: the distinct values of a 1-D x in order of first appearance; idx: each element's
    position in y."""

    shape_from_run = True

    def validate(self) -> None:
        self.check_same_dtype(0, 0)
        if self.outputs[1].dtype not in (np.int32, np.int64):
            raise self.fail(f"UNIQUE indices are int32 or int64, not {self.outputs[1].dtype}")
        if self.static(0) and len(self.inputs[0].shape) != 1:
            raise self.fail(f"UNIQUE needs a 1-D input, got {self.inputs[0].shape}")

    def run(self) -> None:
        x = self.inputs[0].buffer
        if x.ndim != 1:
            raise ValueError(f"UNIQUE needs a 1-D input, got shape {x.shape}")
        values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")      # sorted position -> appearance rank
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y, idx = self.outputs
        y.resize((values.size,))
        y.buffer[...] = values[order]
        idx.resize(x.shape)
        idx.buffer[...] = rank[inverse.reshape(-1)]
