"""TRANSPOSE: a copy of the input's permuted view; a computed permutation is read and checked
in every run (parameters: core/ops/transpose.py). Quantized tensors move unchanged."""
from __future__ import annotations

import numpy as np

from ....core.ops.transpose import TransposeBase
from .common import register


@register("Transpose")
class TransposeLayer(TransposeBase):
    def prepare(self) -> None:
        self.src = None if self.perm is None else self.buf(0).transpose(self.perm)

    def run(self) -> None:
        if self.src is not None:
            np.copyto(self.out, self.src)
            return
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        perm = [int(p) for p in self.inputs[1].buffer.reshape(-1)]
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"perm {perm} is not a permutation of the input's {x.ndim} axes")
        src = x.transpose(perm)
        if src.shape != out.shape:
            raise ValueError(f"transposed shape {src.shape}, the output holds {out.shape}")
        np.copyto(out, src)
