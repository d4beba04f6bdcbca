"""MATRIX_DIAG and MATRIX_SET_DIAG (checks: core/ops/matrix_diag.py)."""
from __future__ import annotations

import numpy as np

from ....core.ops.matrix_diag import MatrixDiagBase, MatrixSetDiagBase
from ....core.ops.movement import copy_checked
from .common import register


def _set_diagonal(out: np.ndarray, d: np.ndarray) -> None:
    """out[..., i, i] = d[..., i] for i < d.shape[-1]."""
    i = np.arange(d.shape[-1])
    out[..., i, i] = d


@register("MatrixDiag")
class MatrixDiagLayer(MatrixDiagBase):
    """[..., N] -> [..., N, N] with the input on the diagonal, zeros elsewhere."""

    def run(self) -> None:
        x, out = self.buf(0), self.out
        if x.ndim < 1 or out.shape != x.shape + x.shape[-1:]:
            raise ValueError(f"input {x.shape} does not fit output {out.shape}")
        out.fill(0)
        _set_diagonal(out, x)


@register("MatrixSetDiag")
class MatrixSetDiagLayer(MatrixSetDiagBase):
    """[..., M, N] with the main diagonal replaced by [..., min(M, N)]."""

    def run(self) -> None:
        x, d, out = self.buf(0), self.buf(1), self.out
        if x.ndim < 2 or d.shape != x.shape[:-2] + (min(x.shape[-2:]),):
            raise ValueError(f"diagonal {d.shape} does not fit input {x.shape}")
        copy_checked(out, x)
        _set_diagonal(out, d)
