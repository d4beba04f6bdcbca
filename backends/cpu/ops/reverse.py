"""REVERSE_V2 and REVERSE_SEQUENCE (parameters: core/ops/reverse.py); axes and lengths are
read in every run."""
from __future__ import annotations

import numpy as np

from ....core.ops.movement import copy_checked, ints
from ....core.ops.reverse import ReverseBase, ReverseSequenceBase, flip_axes
from .common import register


@register("Reverse")
class ReverseLayer(ReverseBase):
    def run(self) -> None:
        x = self.buf(0)
        copy_checked(self.out, np.flip(x, axis=flip_axes(ints(self.buf(1)), x.ndim)))


@register("ReverseSequence")
class ReverseSequenceLayer(ReverseSequenceBase):
    """Along seq_dim, the first seq_lengths[b] elements of batch b are reversed."""

    def run(self) -> None:
        x, lens = self.buf(0), self.buf(1).reshape(-1).astype(np.int64)
        s, b = self.seq_dim % max(x.ndim, 1), self.batch_dim % max(x.ndim, 1)
        if s == b or lens.size != x.shape[b]:
            raise ValueError(f"seq_dim {self.seq_dim}, batch_dim {self.batch_dim}, "
                             f"{lens.size} lengths do not fit input {x.shape}")
        if lens.size and (lens.min() < 0 or lens.max() > x.shape[s]):
            raise ValueError(f"sequence lengths {lens.tolist()} exceed dim {x.shape[s]}")
        j = np.arange(x.shape[s])
        lens_b = lens[:, None]
        idx = np.where(j[None, :] < lens_b, lens_b - 1 - j[None, :], j[None, :])  # [B, S]
        if b > s:
            idx = idx.T
        shape = [1] * x.ndim
        shape[b], shape[s] = x.shape[b], x.shape[s]
        idx = np.broadcast_to(idx.reshape(shape), x.shape)
        copy_checked(self.out, np.take_along_axis(x, idx, axis=s))
