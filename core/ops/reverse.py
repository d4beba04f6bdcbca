"""REVERSE_V2 and REVERSE_SEQUENCE (TFLite's reverse.cc, reverse_sequence.cc). The axes and
sequence lengths are read in every run (they may be graph inputs)."""
from __future__ import annotations

from .movement import MoveKernel


def flip_axes(axes: list[int], rank: int) -> tuple[int, ...]:
    """REVERSE_V2's axes as non-negative axes of a rank-`rank` input; ValueError when one is
    out of range."""
    if any(not -rank <= a < rank for a in axes):
        raise ValueError(f"axes {axes} out of range for rank {rank}")
    return tuple(a % rank for a in axes)


class ReverseBase(MoveKernel):
    index_inputs = (1,)


class ReverseSequenceBase(MoveKernel):
    """Along seq_dim, the first seq_lengths[b] elements of batch b are reversed."""

    index_inputs = (1,)

    def validate(self) -> None:
        super().validate()
        self.seq_dim = int(self.op.params.get("seq_dim", 0))
        self.batch_dim = int(self.op.params.get("batch_dim", 0))


__all__ = ["flip_axes", "ReverseBase", "ReverseSequenceBase"]
