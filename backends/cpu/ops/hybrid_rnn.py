"""Hybrid (dynamic-range quantized) RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
BIDIRECTIONAL_SEQUENCE_RNN: float32 input, state and output and int8 constant weight matrices
(per-tensor scale), as the TFLite converter's dynamic-range quantization writes them. The
arithmetic is in hybrid_rnn_cell; the input/state/option handling is the float kernels'
(rnn.py, core/ops/rnn.py). The hybrid LSTM family is in hybrid_lstm.py, SVDF's hybrid kernel
in hybrid_svdf.py.

Each class is registered under its op's key for the hybrid form (core/ops/forms.py): float32
input and an int8 constant with a scale as the first always-present weight matrix.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid
from .common import register
from .hybrid_rnn_cell import HybridWeights, QMatrix, hybrid_rnn_sequence
from .rnn import BidirectionalSequenceRnnLayer, RnnLayer, UnidirectionalSequenceRnnLayer


def _rnn_weights(kernel, w: int, r: int, b: int):
    return (QMatrix(kernel.slot(w), "input weights"), QMatrix(kernel.slot(r), "recurrent weights"),
            np.asarray(kernel.buf(b), np.float32))


class _HybridRnnStep(HybridWeights):
    def load(self):
        return _rnn_weights(self, 1, 2, 3)

    def step(self, x: np.ndarray) -> np.ndarray:
        wx, wh, b = self.weights
        out, h = hybrid_rnn_sequence(x, self.state(4), wx, wh, b, self.act, self.asym)
        self.save(4, h)
        return out


@register("RNN", when=hybrid)
class HybridRnnLayer(_HybridRnnStep, RnnLayer):
    """One hybrid RNN step."""


@register("UnidirectionalSequenceRNN", when=hybrid)
class HybridUnidirectionalSequenceRnnLayer(_HybridRnnStep, UnidirectionalSequenceRnnLayer):
    """A hybrid RNN over a sequence."""


@register("BidirectionalSequenceRNN", when=hybrid)
class HybridBidirectionalSequenceRnnLayer(HybridWeights, BidirectionalSequenceRnnLayer):
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
        self.write_outputs(out_f, out_b)


__all__ = ["HybridRnnLayer", "HybridUnidirectionalSequenceRnnLayer",
           "HybridBidirectionalSequenceRnnLayer"]
