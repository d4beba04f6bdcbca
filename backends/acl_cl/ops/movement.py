"""The data-movement bases of acl_cl (any element type: ByteKernel):

- `StridedGather` (data.cl gather_nd6): each output element read from an affine position of the
  input, padding filled (pad.py, transpose.py);
- `TableLayer` (indexing.cl take_table): for ops whose parameters are constants, the source
  element of every output element is computed once on the host, by NumPy expressions (core/ops'
  geometry where it has one) applied to an array of element numbers, and one kernel per output
  gathers by it (-1 marks padding, filled with zero or the zero point): slice.py, split.py,
  reverse.py, space_depth.py, space_batch.py, tile.py, and ResizeNearestNeighbor here.

Semantics and bounds follow core/ops (the same helpers) and the cpu kernels."""
from __future__ import annotations

import numpy as np

from ....core.ops.resize import nearest_index, resize_mode
from .common import ByteKernel, register


def gather_meta(out_shape, in_strides, starts, in_dims) -> np.ndarray:
    r = len(out_shape)
    pad = 6 - r
    return np.array([1] * pad + list(out_shape) + [0] * pad + list(in_strides)
                    + [0] * pad + list(starts) + [1] * pad + list(in_dims), np.int32)


class StridedGather(ByteKernel):
    """data.cl gather_nd6: each output element from the input position its index maps to
    (`gather_meta`: per output dim, an input stride, a start and the input's extent); positions
    outside the input get `fill`."""

    fill = None         # None: 0, or the output's zero point when quantized

    def gather(self, meta: np.ndarray) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.meta = self.const_buffer(meta)
        fill = self.zero_of(y) if self.fill is None else self.fill
        self.launch(self.kernel("data.cl", "gather_nd6", self.type_opts(y.dtype)), (y.size,),
                    None, x.buffer, y.buffer, self.meta, self.raw(fill, y.dtype),
                    np.int32(y.size))


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
            self.launch(self.kernel("indexing.cl", "take_table", self.type_opts(y.dtype)),
                        (y.size,), None, x.buffer, y.buffer, buf,
                        self.raw(self.zero_of(y), y.dtype), np.int32(y.size))

    def value(self, i: int) -> list[int]:
        return self.param_values(i)


class SpatialLayer(TableLayer):
    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, f"acl_cl {op.type} needs a 4-D NHWC input"
        return True, ""


@register("ResizeNearestNeighbor")
class ResizeNearestNeighborLayer(SpatialLayer):
    params_at = (1,)

    def tables(self, src):
        _, h, w, _ = src.shape
        _, oh, ow, _ = self.outputs[0].shape
        align, half = resize_mode(self.op.params)     # the cpu kernel's source indices
        iy, ix = nearest_index(oh, h, align, half), nearest_index(ow, w, align, half)
        return [src[:, iy][:, :, ix]]
