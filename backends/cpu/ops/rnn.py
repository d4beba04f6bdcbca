"""RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN (float32) on NumPy.

Operand checks and state handling are core/ops/rnn.py's; the cell math is
rnn_cell.rnn_sequence. Hybrid forms: hybrid_rnn.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.rnn import (BidirectionalSequenceRnnBase, RnnBase,
                              UnidirectionalSequenceRnnBase)
from .common import register
from .rnn_cell import rnn_sequence


@register("RNN")
class RnnLayer(RnnBase):
    """One step: x (batch, n_input) -> (batch, units)."""

    def step(self, x: np.ndarray) -> np.ndarray:
        """Run over x (time, batch, n_input); update the state; return the outputs."""
        wx, wh, b = self.weights if self.weights is not None else self.load()
        out, h = rnn_sequence(x, self.state(4), wx, wh, b, self.act)
        self.save(4, h)
        return out

    def run(self) -> None:
        self.out[...] = self.step(self.buf(0)[None])[0]


@register("UnidirectionalSequenceRNN")
class UnidirectionalSequenceRnnLayer(RnnLayer, UnidirectionalSequenceRnnBase):
    """An RNN over a sequence (time_major: (time, batch, n), else batch first)."""

    def run(self) -> None:
        self.seq(self.out)[...] = self.step(self.seq(self.buf(0)))


@register("BidirectionalSequenceRNN")
class BidirectionalSequenceRnnLayer(BidirectionalSequenceRnnBase):
    """Forward over the sequence, backward over it (or over the aux input) in reverse."""

    def run(self) -> None:
        w = self.weights if self.weights is not None else self.load()
        x, bw_x, aux = self.sequences(w[10] is not None)
        out_f, h = rnn_sequence(x, self.state(4), w[1], w[2], w[3], self.act, aux, w[10])
        self.save(4, h)
        out_b, h = rnn_sequence(bw_x, self.state(8), w[5], w[6], w[7], self.act, aux, w[11],
                                reverse=True)
        self.save(8, h)
        self.write_outputs(out_f, out_b)


__all__ = ["RnnLayer", "UnidirectionalSequenceRnnLayer", "BidirectionalSequenceRnnLayer"]
