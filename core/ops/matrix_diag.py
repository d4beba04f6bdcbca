"""MATRIX_DIAG and MATRIX_SET_DIAG (TFLite's matrix_diag.cc, matrix_set_diag.cc):
[..., N] -> [..., N, N] with the input on the diagonal, zeros elsewhere; [..., M, N] with the
main diagonal replaced by [..., min(M, N)]."""
from __future__ import annotations

from .movement import MoveKernel


class MatrixDiagBase(MoveKernel):
    pass


class MatrixSetDiagBase(MoveKernel):
    def validate(self) -> None:
        super().validate()
        if self.inputs[1].dtype != self.inputs[0].dtype:
            raise self.fail("input and diagonal differ in dtype")


__all__ = ["MatrixDiagBase", "MatrixSetDiagBase"]
