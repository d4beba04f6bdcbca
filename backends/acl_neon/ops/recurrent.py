"""LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, RNN and UNIDIRECTIONAL_SEQUENCE_RNN (float32) on acl_neon.

The op's checks and weights are core/ops/lstm.py's and rnn.py's (the cpu kernels' too).
prepare() builds two native plans from the constant weights: the input projection of every
time step at once, xw = x Wx^T + bias, on the gemm group's packed FcPlan, and the time loop on
the recurrent group's LstmPlan / RnnPlan (csrc/recurrent: recurrent GEMV, gates, cell update,
clip and projection fused, batch rows split over threads). bind() binds both to the tensors'
slots (the projection's output `xw` is a scratch array the kernel keeps, with its own slot)
and chains them into the kernel's one native step. The state inputs are bound as slots too:
variable tensors written back at the end of a run, others only read (core/ops/recurrent.py).
Forms computed: LSTM with or without CIFG, peephole, projection (+ bias), cell / projection
clip, fused NONE/RELU/RELU6/RELU_N1_TO_1/TANH; layer-norm, diagonal-recurrent and
non-constant-weight forms are refused and stay on cpu.
"""
from __future__ import annotations

import math

import numpy as np

from ....core.exec.native import _native, run_step, slot_of
from ....core.ir import Graph, Operation
from ....core.ops.lstm import LstmBase, UnidirectionalSequenceLstmBase
from ....core.ops.recurrent import ACTIVATIONS
from ....core.ops.rnn import RnnBase, UnidirectionalSequenceRnnBase
from .. import native
from .base import F32, NeonMixin, register


def _c(a):
    return None if a is None else np.ascontiguousarray(a, np.float32)


class NeonRecurrent(NeonMixin):
    """Shared checks: the gemm group is built, weights (every input but the data and state
    slots) constant, tensors non-empty."""

    native_group = "recurrent"
    also_needs = ("gemm",)       # the input projection's FcPlan
    sequence = False

    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        ops = graph.operands
        for k, i in enumerate(op.inputs):
            if i < 0:
                continue
            if k not in (0, *cls.state_slots) and not ops[i].is_constant:
                return False, f"acl_neon {op.type} needs constant weights (input {k} is not)"
            if any(d <= 0 for d in ops[i].shape):
                return False, f"acl_neon {op.type} does not run on empty tensors"
        return True, ""

    def geometry(self) -> tuple[int, int, bool]:
        """(steps, batch, time_major) of input 0."""
        x = self.buf(0)
        if not self.sequence:
            return 1, int(x.shape[0]), True
        tm = bool(self.op.params.get("time_major", True))
        return (int(x.shape[0]), int(x.shape[1]), True) if tm else \
            (int(x.shape[1]), int(x.shape[0]), False)

    def projection(self, wx_rows: np.ndarray, bias, rows: int, width: int) -> None:
        """The input projection plan: xw (rows, width) = x wx_rows^T + bias."""
        self.fc = native.module("gemm").FcPlan(_c(wx_rows), _c(bias), rows, -math.inf,
                                               math.inf)
        self.xw = np.empty((rows, width), F32)
        self.xw_slot = _native.slot(self.xw)

    def state_operands(self) -> list:
        """The state inputs the time loop reads (and writes back when variables)."""
        return [self.inputs[i] for i in self.state_slots]

    def bind(self):
        """The projection's step, then the loop's over (xw, states, output), as one step."""
        loop = self.plan.bind(self.xw_slot, *(slot_of(t) for t in self.state_operands()),
                              slot_of(self.outputs[0]), self.threads)
        return _native.chain([self.fc.bind(slot_of(self.inputs[0]), self.xw_slot,
                                            self.threads), loop])


class NeonLstm(NeonRecurrent):
    @classmethod
    def supports(cls, op: Operation, graph: Graph) -> tuple[bool, str]:
        ok, why = super().supports(op, graph)
        if not ok:
            return ok, why
        if any(i >= 0 for i in op.inputs[20:24]):
            return False, "acl_neon LSTM has no layer-norm form"
        if op.params.get("diagonal_recurrent_tensors", False):
            return False, "acl_neon LSTM has no diagonal-recurrent form"
        return True, ""

    def prepare(self) -> None:
        w = self.load()
        steps, batch, tm = self.geometry()
        width = w.wx.shape[1]
        self.projection(w.wx.T, w.bias, steps * batch, width)
        peep = w.peephole if w.peephole is not None else (None, None, None)
        cell_clip, proj_clip = self.clips()
        self.plan = self.lib.LstmPlan(
            [steps, batch, w.n_cell, w.n_output], w.cifg, tm, _c(w.wh), _c(peep[0]),
            _c(peep[1]), _c(peep[2]), _c(w.proj), _c(w.proj_bias), cell_clip, proj_clip,
            ACTIVATIONS.index(self.act),          # the index is csrc's RecAct code
            bool(self.variable.get(18)), bool(self.variable.get(19)))


@register("LSTM")
class LstmLayer(NeonLstm, LstmBase):
    """One LSTM step: (batch, n_input) -> (batch, n_output)."""


@register("UnidirectionalSequenceLSTM")
class UnidirectionalSequenceLstmLayer(NeonLstm, UnidirectionalSequenceLstmBase):
    sequence = True


class NeonRnn(NeonRecurrent):
    def prepare(self) -> None:
        wx, wh, bias = self.load()
        steps, batch, tm = self.geometry()
        units = int(wx.shape[0])
        self.projection(wx, bias, steps * batch, units)
        self.plan = self.lib.RnnPlan([steps, batch, units], tm, _c(wh.T),
                                     ACTIVATIONS.index(self.act), bool(self.variable.get(4)))


@register("RNN")
class RnnLayer(NeonRnn, RnnBase):
    """One RNN step: (batch, n_input) -> (batch, units)."""


@register("UnidirectionalSequenceRNN")
class UnidirectionalSequenceRnnLayer(NeonRnn, UnidirectionalSequenceRnnBase):
    sequence = True
