"""Concat and Pack on acl_cl: each input's rows copied into its columns of the output
(data.cl copy_rows); any element type (ByteKernel). Quantized (8-bit) Concat: quant_move.py."""
from __future__ import annotations

import numpy as np

from .common import ByteKernel, check_act, register


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
