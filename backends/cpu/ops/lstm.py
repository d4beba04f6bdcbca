"""LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM (float32) on NumPy.

Operand checks, state handling and the weights gathered per gate are core/ops/lstm.py's; the
cell math is rnn_cell.lstm_sequence. Hybrid forms: hybrid_lstm.py; the fully integer form:
quant/qlstm.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.lstm import (BidirectionalSequenceLstmBase, LstmBase,
                               UnidirectionalSequenceLstmBase)
from .common import register
from .rnn_cell import lstm_sequence


@register("LSTM")
class LstmLayer(LstmBase):
    """One LSTM step: input (batch, n_input) -> output (batch, n_output)."""

    def step(self, x: np.ndarray) -> np.ndarray:
        """Run over x (time, batch, n_input); update the state; return the outputs."""
        w = self.weights if self.weights is not None else self.load()
        cell_clip, proj_clip = self.clips()
        out, h, c = lstm_sequence(x, self.state(18), self.state(19), w, self.act, cell_clip,
                                  proj_clip)
        self.save(18, h)
        self.save(19, c)
        return out

    def run(self) -> None:
        self.out[...] = self.step(self.buf(0)[None])[0]


@register("UnidirectionalSequenceLSTM")
class UnidirectionalSequenceLstmLayer(LstmLayer, UnidirectionalSequenceLstmBase):
    """An LSTM over a sequence (time_major: (time, batch, n), else batch first)."""

    def run(self) -> None:
        self.seq(self.out)[...] = self.step(self.seq(self.buf(0)))


@register("BidirectionalSequenceLSTM")
class BidirectionalSequenceLstmLayer(BidirectionalSequenceLstmBase):
    """Forward over the sequence, backward over it (or over the aux input) in reverse."""

    def run(self) -> None:
        fw, bw = self.weights if self.weights is not None else self.load()
        x, bw_x, aux = self.sequences(fw.waux is not None)
        cell_clip, proj_clip = self.clips()
        out_f, h, c = lstm_sequence(x, self.state(35), self.state(36), fw, self.act, cell_clip,
                                    proj_clip, aux)
        self.save(35, h)
        self.save(36, c)
        out_b, h, c = lstm_sequence(bw_x, self.state(37), self.state(38), bw, self.act,
                                    cell_clip, proj_clip, aux, reverse=True)
        self.save(37, h)
        self.save(38, c)
        self.write_outputs(out_f, out_b)


__all__ = ["LstmLayer", "UnidirectionalSequenceLstmLayer", "BidirectionalSequenceLstmLayer"]
