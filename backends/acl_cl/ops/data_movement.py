"""Reshape / Squeeze / ExpandDims (a device copy), Concat, Pad / PadV2, Transpose: byte copies
of any element type (ByteKernel)."""
from __future__ import annotations

import numpy as np

from .common import ByteKernel, check_act, register, strides_of


def gather_meta(out_shape, in_strides, starts, in_dims) -> np.ndarray:
    r = len(out_shape)
    pad = 6 - r
    return np.array([1] * pad + list(out_shape) + [0] * pad + list(in_strides)
                    + [0] * pad + list(starts) + [1] * pad + list(in_dims), np.int32)


class GatherBase(ByteKernel):
    fill = None         # None: 0, or the output's zero point when quantized

    def gather(self, meta: np.ndarray) -> None:
        x, y = self.inputs[0], self.outputs[0]
        self.meta = self.const_buffer(meta)
        fill = self.zero_of(y) if self.fill is None else self.fill
        self.launch(self.kernel("data.cl", "gather_nd6", self.type_opts(y.dtype)), (y.size,),
                    None, x.buffer, y.buffer, self.meta, self.raw(fill, y.dtype),
                    np.int32(y.size))


@register("Reshape", "Squeeze", "ExpandDims")
class ReshapeLayer(ByteKernel):
    """A copy between the two planned buffers (they may not alias: lifetimes differ)."""
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.nbytes != y.nbytes:
            raise self.fail(f"reshape of {x.shape} to {y.shape} changes the element count")
        self.copy(x.buffer, y.buffer, y.nbytes)


class RowCopy(ByteKernel):
    def copy_parts(self, parts, dst_cols: int) -> None:
        """Each (tensor, cols) of `parts`: its rows of `cols` into the output's rows of
        `dst_cols`, side by side (data.cl copy_rows)."""
        y, col = self.outputs[0], 0
        for t, cols in parts:
            if t.size:
                self.launch(self.kernel("data.cl", "copy_rows", self.type_opts(y.dtype)),
                            (t.size,), None, t.buffer,
                            y.buffer, np.int32(cols), np.int32(dst_cols), np.int32(col),
                            np.int32(t.size))
            col += cols


@register("Concat")
class ConcatLayer(RowCopy):
    check_params = classmethod(lambda cls, op, graph: check_act(op))

    def setup(self) -> None:
        y = self.outputs[0]
        axis = self.op.params.get("axis", 0) % max(len(y.shape), 1)
        inner = int(np.prod(y.shape[axis + 1:], dtype=np.int64))
        self.copy_parts([(t, t.shape[axis] * inner) for t in self.inputs], y.shape[axis] * inner)


@register("Pad", "PadV2")
class PadLayer(GatherBase):
    params_at = (1,)

    @classmethod
    def check_params(cls, op, graph):
        if op.type == "PadV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
            v = graph.operands[op.inputs[2]]
            if not v.is_constant:
                return False, "acl_cl PadV2 needs a constant padding value"
        return True, ""

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        pads = np.asarray(self.inputs[1].data).reshape(-1, 2)
        if len(self.inputs) > 2 and self.inputs[2] is not None:
            self.fill = np.asarray(self.inputs[2].data).reshape(-1)[0]
        self.gather(gather_meta(y.shape, strides_of(x.shape), [-int(p) for p in pads[:, 0]],
                                x.shape))


@register("Transpose")
class TransposeLayer(GatherBase):
    params_at = (1,)

    def setup(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        perm = [p % len(x.shape) for p in self.param_values(1)] if x.shape else []
        st = strides_of(x.shape)
        self.gather(gather_meta(y.shape, [st[p] for p in perm], [0] * len(perm), y.shape))
