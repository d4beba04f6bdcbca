"""LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM (float32).

The recurrent state inputs are variable tensors: a run starts from their values and leaves the
final state in them, so consecutive runs continue the sequence (as TFLite's invoke does).
Weights that are constants are gathered once in prepare(); otherwise in every run().
"""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, register
from .rnn_cell import gather_lstm, lstm_sequence

F32 = np.dtype(np.float32)
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1", "TANH")


class RecurrentKernel(CpuKernel):
    """Base of the recurrent kernels: float32 everywhere (hybrid int8 weights are refused),
    variable state inputs `state_slots` written back at the end of each run."""

    state_slots: tuple[int, ...] = ()
    required: tuple[int, ...] = ()        # input slots that must be present
    max_inputs = 0

    @classmethod
    def supports(cls, op, graph):
        for i in op.inputs:
            if i >= 0 and graph.operands[i].dtype != F32:
                o = graph.operands[i]
                return False, (f"{cls.backend_id} {op.type} supports float32 only; tensor "
                               f"{o.name!r} is {o.type_name}")
        return True, ""

    def slot(self, i: int):
        return self.inputs[i] if i < len(self.inputs) else None

    def validate(self) -> None:
        if self.max_inputs and len(self.inputs) > self.max_inputs:
            raise self.fail(f"takes at most {self.max_inputs} inputs, got {len(self.inputs)}")
        for i in self.required:
            if self.slot(i) is None:
                raise self.fail(f"input {i} is required")
        act = self.op.params.get("fused_activation_function", "NONE")
        if act not in ACTIVATIONS:
            raise self.fail(f"fused activation {act} is not supported")
        self.act = act
        graph = getattr(getattr(self.ctx, "data", None), "graph", None)
        self.variable = {}
        for i in self.state_slots:
            t = self.slot(i)
            if t is not None:
                operand = graph.operands[self.op.inputs[i]] if graph is not None else None
                self.variable[i] = bool(operand is not None and operand.is_variable)
        self.weight_slots = [i for i, t in enumerate(self.inputs)
                             if t is not None and i not in self.state_slots and i not in
                             self.data_slots()]
        self.constant = all(self.inputs[i].is_constant for i in self.weight_slots)

    def data_slots(self) -> tuple[int, ...]:
        """Slots that carry data (the input sequences), not weights."""
        return (0,)

    def prepare(self) -> None:
        self.weights = self.load() if self.constant else None

    def load(self):
        raise NotImplementedError

    def state(self, i: int) -> np.ndarray:
        return self.inputs[i].buffer

    def save(self, i: int, value: np.ndarray) -> None:
        """Write the final state into variable input `i` (non-variable ones stay as given)."""
        if self.variable.get(i):
            self.inputs[i].buffer[...] = value.reshape(self.inputs[i].buffer.shape)

    def seq(self, a: np.ndarray) -> np.ndarray:
        """(time, batch, ...) view of a sequence tensor, by the time_major option."""
        return a if self.op.params.get("time_major", True) else np.swapaxes(a, 0, 1)

    def clips(self) -> tuple[float, float]:
        p = self.op.params
        return float(p.get("cell_clip", 0.0) or 0.0), float(p.get("proj_clip", 0.0) or 0.0)


LSTM_REQUIRED = (0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19)


class LstmBase(RecurrentKernel):
    state_slots = (18, 19)
    required = LSTM_REQUIRED
    max_inputs = 24

    def validate(self) -> None:
        super().validate()
        if len(self.inputs) not in (20, 24):
            raise self.fail(f"takes 20 or 24 inputs, got {len(self.inputs)}")
        if len(self.outputs) != 1:
            raise self.fail(f"the full LSTM kernel has 1 output, got {len(self.outputs)}")
        if self.op.params.get("kernel_type", "FULL") not in ("FULL", 0):
            raise self.fail("the BASIC LSTM kernel type is not supported")
        cifg = self.slot(1) is None
        if cifg != (self.slot(5) is None):
            raise self.fail("input_to_input and recurrent_to_input weights must both be given "
                            "or both be absent (CIFG)")
        if not cifg and self.slot(12) is None:
            raise self.fail("input gate bias is required without CIFG")
        peep = [self.slot(k) is not None for k in (9, 10, 11)]
        if peep[1] != peep[2] or (not cifg and peep[0] != peep[1]) or (cifg and peep[0]):
            raise self.fail("peephole weights must be all given or all absent")
        ln = [self.slot(k) is not None for k in (20, 21, 22, 23)]
        if any(ln) and (not all(ln[1:]) or ln[0] == cifg):
            raise self.fail("layer-norm coefficients must be given for every gate used")
        if self.slot(17) is not None and self.slot(16) is None:
            raise self.fail("projection bias without projection weights")

    def load(self):
        return gather_lstm([self.slot(i) for i in range(24)],
                           bool(self.op.params.get("diagonal_recurrent_tensors", False)))

    def step(self, x: np.ndarray) -> np.ndarray:
        """Run over x (time, batch, n_input); update the state; return the outputs."""
        w = self.weights if self.weights is not None else self.load()
        cell_clip, proj_clip = self.clips()
        out, h, c = lstm_sequence(x, self.state(18), self.state(19), w, self.act, cell_clip,
                                  proj_clip)
        self.save(18, h)
        self.save(19, c)
        return out


class OneStep:
    """Mixin for the single-step forms (LSTM, RNN): input (batch, n) -> (batch, units)."""

    def run(self) -> None:
        self.out[...] = self.step(self.buf(0)[None])[0]


class OverSequence:
    """Mixin for the sequence forms (time_major: (time, batch, n), else batch first)."""

    def validate(self) -> None:
        super().validate()
        if len(self.inputs[0].shape) != 3 and not self.inputs[0].is_dynamic:
            raise self.fail(f"input must have rank 3, not {len(self.inputs[0].shape)}")

    def run(self) -> None:
        self.seq(self.out)[...] = self.step(self.seq(self.buf(0)))


@register("LSTM")
class LstmLayer(OneStep, LstmBase):
    """One LSTM step: input (batch, n_input) -> output (batch, n_output)."""


@register("UnidirectionalSequenceLSTM")
class UnidirectionalSequenceLstmLayer(OverSequence, LstmBase):
    """An LSTM over a sequence."""


class BidirectionalKernel(RecurrentKernel):
    """Base of the bidirectional kernels: one output (merge_outputs) or two, the first aux
    weights of both directions (slots `aux_weights`) given or absent together, and the input
    sequence, aux input sequence at slot `aux_input`."""

    aux_input = 0
    aux_weights: tuple[int, int] = (0, 0)

    def data_slots(self) -> tuple[int, ...]:
        return (0, self.aux_input)

    def validate(self) -> None:
        super().validate()
        merge = bool(self.op.params.get("merge_outputs", False))
        if len(self.outputs) != (1 if merge else 2):
            raise self.fail(f"needs {1 if merge else 2} outputs with merge_outputs={merge}, "
                            f"got {len(self.outputs)}")
        if (self.slot(self.aux_weights[0]) is None) != (self.slot(self.aux_weights[1]) is None):
            raise self.fail("aux weights must be given for both directions or neither")

    def sequences(self, aux_weighted: bool):
        """(forward input, backward input, aux input of both directions or None), each
        (time, batch, n): an aux input without aux weights is the backward direction's input."""
        x = self.seq(self.buf(0))
        aux = None if self.slot(self.aux_input) is None else self.seq(self.buf(self.aux_input))
        if aux is not None and not aux_weighted:
            return x, aux, None
        return x, x, aux


# BIDIRECTIONAL_SEQUENCE_LSTM slots: 1-17 forward weights (as LSTM's 1-17), 18-34 backward
# ones, 35/36 forward state (h, c), 37/38 backward state, 39 aux input, 40-43 forward aux
# weights, 44-47 backward aux weights.
BW = 17


@register("BidirectionalSequenceLSTM")
class BidirectionalSequenceLstmLayer(BidirectionalKernel):
    state_slots = (35, 36, 37, 38)
    aux_input, aux_weights = 39, (40, 44)
    max_inputs = 48
    required = (0, *[k for k in LSTM_REQUIRED if 0 < k < 18],
                *[k + BW for k in LSTM_REQUIRED if 0 < k < 18], 35, 36, 37, 38)

    def validate(self) -> None:
        super().validate()
        if len(self.inputs) != 48:
            raise self.fail(f"takes 48 inputs, got {len(self.inputs)}")

    def direction(self, base: int, aux: int):
        slots = [None] + [self.slot(base + k) for k in range(1, 18)] + [None] * 6
        return gather_lstm(slots, aux=[self.slot(aux + k) for k in range(4)])

    def load(self):
        return self.direction(0, 40), self.direction(BW, 44)

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
        write_bidi(self, out_f, out_b)


def write_bidi(kernel: RecurrentKernel, out_f: np.ndarray, out_b: np.ndarray) -> None:
    """Store (time, batch, units) forward/backward outputs: merged along the last axis into
    output 0, or into outputs 0 and 1."""
    if len(kernel.outputs) == 1:
        kernel.seq(kernel.out)[...] = np.concatenate([out_f, out_b], axis=-1)
    else:
        kernel.seq(kernel.outputs[0].buffer)[...] = out_f
        kernel.seq(kernel.outputs[1].buffer)[...] = out_b
