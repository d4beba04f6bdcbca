"""TRANSPOSE: the input's axes permuted by `perm` (TFLite's transpose.cc). A constant
permutation is checked at configure; a computed one is read (and checked) in every run."""
from __future__ import annotations

from .base import ANY, OpKernel


class TransposeBase(OpKernel):
    dtypes = ANY
    quantized = True

    def validate(self) -> None:
        perm = self.inputs[1]
        self.perm = None      # a computed permutation is read in every run
        if perm.is_constant:
            self.perm = [int(p) for p in perm.buffer.reshape(-1)]
            rank = len(self.inputs[0].shape)
            if not self.inputs[0].is_dynamic and sorted(self.perm) != list(range(rank)):
                raise self.fail(f"perm {self.perm} is not a permutation of the input's "
                                f"{rank} axes")


__all__ = ["TransposeBase"]
