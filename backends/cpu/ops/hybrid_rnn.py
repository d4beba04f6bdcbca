"""Hybrid (dynamic-range quantized) recurrent kernels: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN
with float32 input, state and output and int8 constant weight matrices (per-tensor scale), as
the TFLite converter's dynamic-range quantization writes them. The arithmetic is in
hybrid_rnn_cell; the input/state/option handling is the float kernels' (rnn_lstm, rnn).

SVDF's hybrid kernel (hybrid_svdf) is listed in HYBRID_RNN_KERNELS too.

These classes are not registered: hybrid.hybrid_kernel_for routes an op here when its input is
float32 and its first always-present weight matrix is an int8 constant with a scale.
"""
from __future__ import annotations

import numpy as np

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


class HybridLstm(_HybridLstmStep, LstmLayer):
    """One hybrid LSTM step."""


class HybridUnidirectionalSequenceLstm(_HybridLstmStep, UnidirectionalSequenceLstmLayer):
    """A hybrid LSTM over a sequence."""


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


class HybridRnn(_HybridRnnStep, RnnLayer):
    """One hybrid RNN step."""


class HybridUnidirectionalSequenceRnn(_HybridRnnStep, UnidirectionalSequenceRnnLayer):
    """A hybrid RNN over a sequence."""


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


#: IR op type -> (hybrid kernel class, index of an always-present int8 weight matrix)
HYBRID_RNN_KERNELS = {
    "LSTM": (HybridLstm, 2),
    "UnidirectionalSequenceLSTM": (HybridUnidirectionalSequenceLstm, 2),
    "BidirectionalSequenceLSTM": (HybridBidirectionalSequenceLstm, 2),
    "RNN": (HybridRnn, 1),
    "UnidirectionalSequenceRNN": (HybridUnidirectionalSequenceRnn, 1),
    "BidirectionalSequenceRNN": (HybridBidirectionalSequenceRnn, 1),
    "Svdf": (HybridSvdf, 1),
}

__all__ = ["HYBRID_RNN_KERNELS", "HybridLstm", "HybridUnidirectionalSequenceLstm",
           "HybridBidirectionalSequenceLstm", "HybridRnn", "HybridUnidirectionalSequenceRnn",
           "HybridBidirectionalSequenceRnn", "HybridSvdf"]
