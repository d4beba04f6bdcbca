"""ResizeBilinear on float32 (norm.cl resize_bilinear), with the float32 source coordinates and
the parameter checks of core/ops/resize.py (the cpu kernel's). ResizeNearestNeighbor is an index
table: movement.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.resize import coordinates, interpolation, mode_error
from .common import ClKernel, register


@register("ResizeBilinear")
class ResizeBilinearLayer(ClKernel):
    params_at = (1,)

    @classmethod
    def check_params(cls, op, graph):
        if len(graph.operands[op.inputs[0]].shape) != 4:
            return False, "acl_cl ResizeBilinear needs a 4-D NHWC input"
        why = mode_error(op.params)
        return not why, why

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        _, h, w, c = x.shape
        _, oh, ow, _ = y.shape
        (y0, y1, dy), (x0, x1, dx) = coordinates(interpolation, self.op.params, x.shape, y.shape)
        self.tables = [self.const_buffer(a.astype(np.int32)) for a in (y0, y1)] + [
            self.const_buffer(dy.astype(np.float32))] + [
            self.const_buffer(a.astype(np.int32)) for a in (x0, x1)] + [
            self.const_buffer(dx.astype(np.float32))]
        if y.size:
            self.launch(self.kernel("norm.cl", "resize_bilinear"), (y.size,), None, x.buffer,
                        y.buffer, *self.tables, *(np.int32(v) for v in (h, w, c, oh, ow)),
                        np.int32(y.size))
