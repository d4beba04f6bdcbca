"""Recurrent ops (float32): RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and
SVDF here; the LSTM family in rnn_lstm. Their state inputs are variable tensors that carry
over from one run to the next (see RecurrentKernel)."""
from __future__ import annotations

import numpy as np

from .common import register
from .rnn_cell import F32, act_fn, rnn_sequence
from .rnn_lstm import BidirectionalKernel, OneStep, OverSequence, RecurrentKernel, write_bidi

__all__ = ["RnnLayer", "UnidirectionalSequenceRnnLayer", "BidirectionalSequenceRnnLayer",
           "SvdfLayer"]


class RnnBase(RecurrentKernel):
    """inputs (x, weights (units, n_input), recurrent_weights (units, units), bias (units,),
    hidden_state (batch, units))."""

    state_slots = (4,)
    required = (0, 1, 2, 3, 4)
    max_inputs = 5

    def load(self):
        return tuple(np.asarray(self.buf(i), F32) for i in (1, 2, 3))

    def step(self, x: np.ndarray) -> np.ndarray:
        wx, wh, b = self.weights if self.weights is not None else self.load()
        out, h = rnn_sequence(x, self.state(4), wx, wh, b, self.act)
        self.save(4, h)
        return out


@register("RNN")
class RnnLayer(OneStep, RnnBase):
    """One step: x (batch, n_input) -> (batch, units)."""


@register("UnidirectionalSequenceRNN")
class UnidirectionalSequenceRnnLayer(OverSequence, RnnBase):
    """An RNN over a sequence."""


@register("BidirectionalSequenceRNN")
class BidirectionalSequenceRnnLayer(BidirectionalKernel):
    """inputs: 0 x, 1-4 forward (weights, recurrent weights, bias, hidden state), 5-8 the
    backward ones, 9 aux input, 10/11 forward/backward aux weights (all three optional). An aux
    input without aux weights is the backward direction's input."""

    state_slots = (4, 8)
    required = tuple(range(9))
    max_inputs = 12
    aux_input, aux_weights = 9, (10, 11)

    def load(self):
        def get(i):
            return None if self.slot(i) is None else np.asarray(self.buf(i), F32)
        return [get(i) for i in range(12)]

    def run(self) -> None:
        w = self.weights if self.weights is not None else self.load()
        x, bw_x, aux = self.sequences(w[10] is not None)
        out_f, h = rnn_sequence(x, self.state(4), w[1], w[2], w[3], self.act, aux, w[10])
        self.save(4, h)
        out_b, h = rnn_sequence(bw_x, self.state(8), w[5], w[6], w[7], self.act, aux, w[11],
                                reverse=True)
        self.save(8, h)
        write_bidi(self, out_f, out_b)


@register("Svdf")
class SvdfLayer(RecurrentKernel):
    """inputs (x (batch, n_input), weights_feature (filters, n_input), weights_time
    (filters, memory), bias (units,) optional, state (batch, filters * memory)); rank option,
    units = filters / rank. Each run shifts the state left by one, stores the feature
    projection of x in the last column, and sums state * weights_time over memory and rank."""

    state_slots = (4,)
    required = (0, 1, 2, 4)
    max_inputs = 5

    def validate(self) -> None:
        super().validate()
        self.rank = int(self.op.params.rank)
        filters, memory = self.inputs[2].shape
        if self.rank <= 0 or filters % self.rank:
            raise self.fail(f"{filters} filters do not divide into rank {self.rank}")
        self.memory = memory
        self.activate = act_fn(self.act)

    def load(self):
        bias = None if self.slot(3) is None else np.asarray(self.buf(3), F32)
        return np.asarray(self.buf(1), F32), np.asarray(self.buf(2), F32), bias

    def run(self) -> None:
        wf, wt, bias = self.weights if self.weights is not None else self.load()
        x = self.buf(0)
        batch, filters = x.shape[0], wf.shape[0]
        state = np.array(self.state(4), F32).reshape(batch, filters, self.memory)
        state[:, :, :-1] = state[:, :, 1:]
        state[:, :, -1] = np.matmul(x, wf.T)
        scratch = np.einsum("bfm,fm->bf", state, wt)
        out = scratch.reshape(batch, filters // self.rank, self.rank).sum(axis=-1)
        if bias is not None:
            out = out + bias
        self.out[...] = self.activate(out.astype(F32, copy=False))
        self.save(4, state)
