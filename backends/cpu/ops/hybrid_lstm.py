"""Hybrid (dynamic-range quantized) LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
BIDIRECTIONAL_SEQUENCE_LSTM: float32 input, state and output and int8 constant weight matrices
(per-tensor scale), as the TFLite converter's dynamic-range quantization writes them. The
arithmetic is in hybrid_rnn_cell; the input/state/option handling is the float kernels'
(lstm.py, core/ops/lstm.py). The fully integer form: quant/qlstm.py.

Each class is registered under its op's key for the hybrid form (core/ops/forms.py): float32
input and an int8 constant with a scale as the first always-present weight matrix.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid_weights
from .common import register
from .hybrid_rnn_cell import HybridWeights, gather_hybrid_lstm, hybrid_lstm_sequence
from .lstm import BidirectionalSequenceLstmLayer, LstmLayer, UnidirectionalSequenceLstmLayer


class _HybridLstmStep(HybridWeights):
    def validate(self) -> None:
        if self.op.params.get("diagonal_recurrent_tensors", False):
            raise self.fail("hybrid LSTM with diagonal recurrent weights is not supported")
        super().validate()

    def load(self):
        return gather_hybrid_lstm([self.slot(i) for i in range(24)])

    def step(self, x: np.ndarray) -> np.ndarray:
        cell_clip, proj_clip = self.clips()
        out, h, c = hybrid_lstm_sequence(x, self.state(18), self.state(19), self.weights,
                                         self.act, cell_clip, proj_clip, self.asym)
        self.save(18, h)
        self.save(19, c)
        return out


@register("LSTM", when=hybrid_weights(2))
class HybridLstmLayer(_HybridLstmStep, LstmLayer):
    """One hybrid LSTM step."""


@register("UnidirectionalSequenceLSTM", when=hybrid_weights(2))
class HybridUnidirectionalSequenceLstmLayer(_HybridLstmStep, UnidirectionalSequenceLstmLayer):
    """A hybrid LSTM over a sequence."""


@register("BidirectionalSequenceLSTM", when=hybrid_weights(2))
class HybridBidirectionalSequenceLstmLayer(HybridWeights, BidirectionalSequenceLstmLayer):
    gather = staticmethod(gather_hybrid_lstm)

    def run(self) -> None:
        fw, bw = self.weights
        x, bw_x, aux = self.sequences(fw.waux is not None)
        cell_clip, proj_clip = self.clips()
        out_f, h, c = hybrid_lstm_sequence(x, self.state(35), self.state(36), fw, self.act,
                                           cell_clip, proj_clip, self.asym, aux)
        self.save(35, h)
        self.save(36, c)
        out_b, h, c = hybrid_lstm_sequence(bw_x, self.state(37), self.state(38), bw, self.act,
                                           cell_clip, proj_clip, self.asym, aux, reverse=True)
        self.save(37, h)
        self.save(38, c)
        self.write_outputs(out_f, out_b)


__all__ = ["HybridLstmLayer", "HybridUnidirectionalSequenceLstmLayer",
           "HybridBidirectionalSequenceLstmLayer"]
