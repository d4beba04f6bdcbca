"""RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN (TFLite's basic_rnn.cc,
unidirectional_sequence_rnn.cc, bidirectional_sequence_rnn.cc): operand slots, required inputs
and the float weights as every backend's float kernel reads them.

Kernels: float backends/cpu/ops/rnn.py (cell math in rnn_cell.py), acl_neon and acl_cl
ops/recurrent.py; hybrid backends/cpu/ops/hybrid_rnn.py.
"""
from __future__ import annotations

import numpy as np

from .recurrent import BidirectionalBase, RecurrentBase, SequenceForm

F32 = np.float32


class RnnBase(RecurrentBase):
    """inputs (x, weights (units, n_input), recurrent_weights (units, units), bias (units,),
    hidden_state (batch, units))."""

    state_slots = (4,)
    required = (0, 1, 2, 3, 4)
    max_inputs = 5

    def load(self):
        return tuple(np.asarray(self.buf(i), F32) for i in (1, 2, 3))


class UnidirectionalSequenceRnnBase(SequenceForm, RnnBase):
    """An RNN over a sequence (input 0 of rank 3, time_major or batch first)."""


class BidirectionalSequenceRnnBase(BidirectionalBase):
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


__all__ = ["RnnBase", "UnidirectionalSequenceRnnBase", "BidirectionalSequenceRnnBase"]
