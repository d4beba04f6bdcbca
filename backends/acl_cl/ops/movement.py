"""Data movement as index tables: for ops whose parameters are constants (Slice, StridedSlice,
Split, SplitV, Unpack, Reverse, DepthToSpace, SpaceToDepth, SpaceToBatchND, BatchToSpaceND,
ResizeNearestNeighbor), the source element of every output element is computed once on the
host, by the cpu backend's NumPy expressions applied to an array of element numbers, and one
`take_table` kernel per output gathers by it (-1 marks padding, filled with zero or the zero
point). Pack runs as a Concat of its inputs. Any element type (ByteKernel); Tile too. Semantics and bounds follow backends/cpu/ops (the same helpers)."""
from __future__ import annotations

import numpy as np

from ....core.compiler.shape_rules_more import split_sizes, strided_slice_plan
from ....core.ops.space_batch import batch_to_space, check_block, space_to_batch
from .common import ByteKernel, register
from .data_movement import RowCopy


class TableLayer(ByteKernel):
    """Subclasses give `tables(src)`: one index array per output, shaped like that output."""

    data = 0

    def tables(self, src: np.ndarray) -> list[np.ndarray]:
        raise NotImplementedError

    def setup(self) -> None:
        x = self.inputs[self.data]
        src = np.arange(x.size, dtype=np.int64).reshape(x.shape)
        try:
            tables = self.tables(src)
        except (ValueError, IndexError) as e:
            raise self.fail(str(e)) from None
        self.tables_ = []
        for y, t in zip(self.outputs, tables):
            t = np.asarray(t)
            if t.shape != tuple(y.shape):
                raise self.fail(f"computed a result of shape {t.shape} for output {y.shape}")
            if not y.size:
                continue
            buf = self.const_buffer(t.astype(np.int32).reshape(-1))
            self.tables_.append(buf)
            self.launch(self.kernel("extra.cl", "take_table", self.type_opts(y.dtype)),
                        (y.size,), None, x.buffer, y.buffer, buf,
                        self.raw(self.zero_of(y), y.dtype), np.int32(y.size))

    def value(self, i: int) -> list[int]:
        return self.param_values(i)


@register("Slice")
class SliceLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        begin = self.value(1)
        out = self.outputs[0].shape
        if len(begin) != src.ndim or any(b < 0 or b + s > d for b, s, d in
                                         zip(begin, out, src.shape)):
            raise ValueError(f"slice begin {begin} with size {out} is out of bounds for the "
                             f"input shape {src.shape}")
        return [src[tuple(slice(b, b + s) for b, s in zip(begin, out))]]


@register("StridedSlice")
class StridedSliceLayer(TableLayer):
    params_at = (1, 2, 3)

    def tables(self, src):
        plan = strided_slice_plan(src.shape, self.inputs[1].data, self.inputs[2].data,
                                  self.inputs[3].data, self.op.params)
        return [src.reshape(plan.effective)[plan.index]]


@register("Split")
class SplitLayer(TableLayer):
    """inputs (axis, x)."""
    data = 1
    params_at = (0,)

    def tables(self, src):
        axis = self.value(0)[0]
        if not -src.ndim <= axis < src.ndim:
            raise ValueError(f"axis {axis} out of range for rank {src.ndim}")
        return np.split(src, len(self.outputs), axis=axis)


@register("SplitV")
class SplitVLayer(TableLayer):
    """inputs (x, size_splits, axis)."""
    params_at = (1, 2)

    def tables(self, src):
        axis = self.value(2)[0]
        if not -src.ndim <= axis < src.ndim:
            raise ValueError(f"axis {axis} out of range for rank {src.ndim}")
        sizes = split_sizes(self.value(1), src.shape[axis])
        return np.split(src, np.cumsum(sizes)[:-1], axis=axis)


@register("Unpack")
class UnpackLayer(TableLayer):
    def tables(self, src):
        axis = int(self.op.params.get("axis", 0))
        if not -src.ndim <= axis < src.ndim or src.shape[axis] != len(self.outputs):
            raise ValueError(f"cannot unpack axis {axis} of {src.shape} into "
                             f"{len(self.outputs)} outputs")
        axis %= src.ndim
        return [src[(slice(None),) * axis + (k,)] for k in range(len(self.outputs))]


@register("Reverse")
class ReverseLayer(TableLayer):
    params_at = (1,)

    def tables(self, src):
        axes = self.value(1)
        if any(not -src.ndim <= a < src.ndim for a in axes):
            raise ValueError(f"axes {axes} out of range for rank {src.ndim}")
        return [np.flip(src, axis=tuple(a % src.ndim for a in axes))]


class SpatialLayer(TableLayer):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, f"acl_cl {op.type} needs a 4-D NHWC input"
        return True, ""


@register("DepthToSpace")
class DepthToSpaceLayer(SpatialLayer):
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        t = src.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
        return [t.reshape(n, h * b, w * b, c // (b * b))]


@register("SpaceToDepth")
class SpaceToDepthLayer(SpatialLayer):
    def tables(self, src):
        n, h, w, c = src.shape
        b = int(self.op.params.block_size)
        t = src.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
        return [t.reshape(n, h // b, w // b, b * b * c)]


def _block(kernel, src) -> tuple[list[int], np.ndarray]:
    block = kernel.value(1)
    pads = np.asarray(kernel.inputs[2].data).reshape(-1, 2).astype(np.int64)
    check_block(block, pads, src.shape)
    return block, pads


@register("SpaceToBatchND")
class SpaceToBatchNDLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        return [space_to_batch(src, *_block(self, src), fill=-1)]


@register("BatchToSpaceND")
class BatchToSpaceNDLayer(TableLayer):
    params_at = (1, 2)

    def tables(self, src):
        return [batch_to_space(src, *_block(self, src))]


@register("ResizeNearestNeighbor")
class ResizeNearestNeighborLayer(SpatialLayer):
    params_at = (1,)

    def tables(self, src):
        p = self.op.params
        _, h, w, _ = src.shape
        _, oh, ow, _ = self.outputs[0].shape
        align, half = p.get("align_corners", False), p.get("half_pixel_centers", False)

        def index(o: int, i: int) -> np.ndarray:    # as the cpu kernel (TfLiteRound)
            scale = (i - 1) / (o - 1) if align and o > 1 else i / o
            v = np.arange(o, dtype=np.float32)
            s = (v + (0.5 if half else 0.0)) * np.float32(scale)
            idx = np.floor(s)
            if align:
                idx += (s - idx) >= 0.5
            return np.minimum(idx.astype(np.int64), i - 1)
        return [src[:, index(oh, h)][:, :, index(ow, w)]]


@register("Tile")
class TileLayer(TableLayer):
    params_at = (1,)

    def tables(self, src):
        reps = self.value(1)
        if len(reps) != src.ndim or any(r < 0 for r in reps):
            raise ValueError(f"multiples {reps} do not fit an input of rank {src.ndim}")
        return [np.tile(src, reps)]


@register("Pack")
class PackLayer(RowCopy):
    """Each input is copied into its slot along the new axis (Concat's row copy)."""

    def setup(self) -> None:
        y = self.outputs[0]
        axis = int(self.op.params.get("axis", 0))
        if not -len(y.shape) <= axis < len(y.shape) or y.shape[axis] != len(self.inputs):
            raise self.fail(f"cannot pack {len(self.inputs)} inputs on axis {axis} of {y.shape}")
        axis %= len(y.shape)
        inner = int(np.prod(y.shape[axis + 1:], dtype=np.int64))
        for k, t in enumerate(self.inputs):
            if t.size != y.size // len(self.inputs):
                raise self.fail(f"input {k} of shape {t.shape} does not fit output {y.shape}")
        self.copy_parts([(t, inner) for t in self.inputs], inner * len(self.inputs))
