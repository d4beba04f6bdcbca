"""Hybrid (dynamic-range quantized) recurrent kernels: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN
with float32 input, state and output and int8 constant weight matrices (per-tensor scale), as
the TFLite converter's dynamic-range quantization writes them. The arithmetic is in
hybrid_rnn_cell; the input/state/option handling is the float kernels' (rnn_lstm, rnn).

SVDF's hybrid kernel is in hybrid_svdf.

Each class is registered under its op's key for the hybrid form (core/ops/forms.py): float32
input and an int8 constant with a scale as the first always-present weight matrix.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid, hybrid_weights
from .common import register
from .hybrid_rnn_cell import (HybridRecurrent, QMatrix, gather_hybrid_lstm,
                              hybrid_lstm_sequence, hybrid_rnn_sequence)
from .hybrid_svdf import HybridSvdf
from .rnn import BidirectionalSequenceRnnLayer, RnnLayer, UnidirectionalSequenceRnnLayer
from .rnn_lstm import (BidirectionalSequenceLstmLayer, LstmLayer, UnidirectionalSequenceLstmLayer,
                       write_bidi)

F32 = np.dtype(np.float32)
I8 = np.dtype(np.int8)


class _HybridRecurrent(HybridRecurrent):
    """Accepts int8 weights; the data and state inputs stay float32."""

    @classmethod
    def supports(cls, op, graph):
        for i in op.inputs:
            if i >= 0 and graph.operands[i].dtype not in (F32, I8):
                o = graph.operands[i]
                return False, (f"hybrid cpu {op.type} takes float32 data and int8 weights; "
                               f"tensor {o.name!r} is {o.type_name}")
        for i in op.outputs:
            if i >= 0 and graph.operands[i].dtype != F32:
                return False, f"hybrid cpu {op.type} writes float32 outputs"
        return True, ""

    def validate(self) -> None:
        for i in self.data_slots() + tuple(self.state_slots):
            t = self.slot(i)
            if t is not None and t.dtype != F32:
                raise self.fail(f"input {i} must be float32, not {t.dtype}")
        super().validate()


# ---- LSTM family -------------------------------------------------------------------------------
class _HybridLstmStep(_HybridRecurrent):
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
class HybridLstm(_HybridLstmStep, LstmLayer):
    """One hybrid LSTM step."""


@register("UnidirectionalSequenceLSTM", when=hybrid_weights(2))
class HybridUnidirectionalSequenceLstm(_HybridLstmStep, UnidirectionalSequenceLstmLayer):
    """A hybrid LSTM over a sequence."""


@register("BidirectionalSequenceLSTM", when=hybrid_weights(2))
class HybridBidirectionalSequenceLstm(_HybridRecurrent, BidirectionalSequenceLstmLayer):
    def direction(self, base: int, aux: int):
        slots = [None] + [self.slot(base + k) for k in range(1, 18)] + [None] * 6
        return gather_hybrid_lstm(slots, aux=[self.slot(aux + k) for k in range(4)])

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
        write_bidi(self, out_f, out_b)


# ---- RNN family --------------------------------------------------------------------------------
def _rnn_weights(kernel, w: int, r: int, b: int):
    return (QMatrix(kernel.slot(w), "input weights"), QMatrix(kernel.slot(r), "recurrent weights"),
            np.asarray(kernel.buf(b), np.float32))


class _HybridRnnStep(_HybridRecurrent):
    def load(self):
        return _rnn_weights(self, 1, 2, 3)

    def step(self, x: np.ndarray) -> np.ndarray:
        wx, wh, b = self.weights
        out, h = hybrid_rnn_sequence(x, self.state(4), wx, wh, b, self.act, self.asym)
        self.save(4, h)
        return out


@register("RNN", when=hybrid)
class HybridRnn(_HybridRnnStep, RnnLayer):
    """One hybrid RNN step."""


@register("UnidirectionalSequenceRNN", when=hybrid)
class HybridUnidirectionalSequenceRnn(_HybridRnnStep, UnidirectionalSequenceRnnLayer):
    """A hybrid RNN over a sequence."""


@register("BidirectionalSequenceRNN", when=hybrid)
class HybridBidirectionalSequenceRnn(_HybridRecurrent, BidirectionalSequenceRnnLayer):
    def load(self):
        aux = [None if self.slot(i) is None else QMatrix(self.slot(i), "aux weights")
               for i in (10, 11)]
        return _rnn_weights(self, 1, 2, 3), _rnn_weights(self, 5, 6, 7), aux

    def run(self) -> None:
        fw, bw, (aux_f, aux_b) = self.weights
        x, bw_x, aux = self.sequences(aux_f is not None)
        out_f, h = hybrid_rnn_sequence(x, self.state(4), *fw, self.act, self.asym, aux, aux_f)
        self.save(4, h)
        out_b, h = hybrid_rnn_sequence(bw_x, self.state(8), *bw, self.act, self.asym, aux, aux_b,
                                       reverse=True)
        self.save(8, h)
        write_bidi(self, out_f, out_b)


__all__ = ["HybridLstm", "HybridUnidirectionalSequenceLstm",
           "HybridBidirectionalSequenceLstm", "HybridRnn", "HybridUnidirectionalSequenceRnn",
           "HybridBidirectionalSequenceRnn", "HybridSvdf"]
