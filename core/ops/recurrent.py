"""The shared half of the recurrent ops (LSTM, RNN, their sequence and bidirectional forms,
SVDF; core/ops/lstm.py, rnn.py, svdf.py build on it): operand slots, the fused activations they
take, and the variable state inputs.

The state inputs are variable tensors, as in TFLite: a run starts from their values and leaves
the final state in them, so consecutive runs continue the sequence (as the interpreter's invoke
does); a state input that is not a variable is read and left unchanged. Weights that are
constants are gathered once in prepare() (`load`), otherwise in every run.
"""
from __future__ import annotations

import numpy as np

from .base import OpKernel

F32 = np.dtype(np.float32)
# the fused activations of TFLite's float LSTM / RNN / SVDF kernels (their codes: the index)
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1", "TANH")


class RecurrentBase(OpKernel):
    """Base of the recurrent ops: float32 everywhere (hybrid int8 weights are refused; the
    hybrid and quantized forms override `supports`), input slots `required`, at most
    `max_inputs`, variable state inputs `state_slots` written back at the end of each run."""

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
        weights = [t for i, t in enumerate(self.inputs)
                   if t is not None and i not in self.state_slots and i not in self.data_slots()]
        self.constant = all(t.is_constant for t in weights)

    def data_slots(self) -> tuple[int, ...]:
        """Slots that carry data (the input sequences), not weights."""
        return (0,)

    def prepare(self) -> None:
        self.weights = self.load() if self.constant else None

    def load(self):
        """The weights as the kernel computes with them (gathered from the weight slots)."""
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


class SequenceForm:
    """Mixin of the UNIDIRECTIONAL_SEQUENCE forms (listed before the op's base): input 0 is a
    rank-3 sequence, (time, batch, n) when time_major, else (batch, time, n)."""

    def validate(self) -> None:
        super().validate()
        if len(self.inputs[0].shape) != 3 and not self.inputs[0].is_dynamic:
            raise self.fail(f"input must have rank 3, not {len(self.inputs[0].shape)}")


class BidirectionalBase(RecurrentBase):
    """Base of the BIDIRECTIONAL_SEQUENCE forms: one output (merge_outputs) or two, the first
    aux weights of both directions (slots `aux_weights`) given or absent together, and the
    input sequence, aux input sequence at slot `aux_input`."""

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

    def write_outputs(self, out_f: np.ndarray, out_b: np.ndarray) -> None:
        """Store (time, batch, units) forward/backward outputs: merged along the last axis into
        output 0, or into outputs 0 and 1."""
        if len(self.outputs) == 1:
            self.seq(self.out)[...] = np.concatenate([out_f, out_b], axis=-1)
        else:
            self.seq(self.outputs[0].buffer)[...] = out_f
            self.seq(self.outputs[1].buffer)[...] = out_b


__all__ = ["ACTIVATIONS", "RecurrentBase", "SequenceForm", "BidirectionalBase"]
