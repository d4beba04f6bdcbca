"""LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM: operand slots and the
checks of TFLite's Prepare (lstm.cc, unidirectional_sequence_lstm.cc,
bidirectional_sequence_lstm.cc), the float weights gathered per gate (`gather_lstm`, which
every backend's float kernel computes with), and the fully integer (8x8_16) form's Prepare:
tensor types, effective scales and clips (`IntLstmParams`).

Kernels: float backends/cpu/ops/lstm.py (cell math in rnn_cell.py), acl_neon and acl_cl
ops/recurrent.py; hybrid backends/cpu/ops/hybrid_lstm.py; quantized
backends/cpu/ops/quant/qlstm.py.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..quant.qmath import quantize_multiplier_int as quantize_multiplier
from ..quant.qlut_math import checked_log2
from .quant_base import I8, I16, QuantOpKernel
from .recurrent import BidirectionalBase, RecurrentBase, SequenceForm

F32 = np.float32
I32 = np.dtype(np.int32)

# ---- float weights -----------------------------------------------------------------------------


def _arr(t) -> np.ndarray | None:
    return None if t is None else np.asarray(t.buffer, F32)


@dataclass
class LstmWeights:
    """One direction's LSTM parameters, gates concatenated along the last axis in the order
    (i, f, g, o), without i under CIFG. `wx` (n_input, G*n_cell); `wh` (n_output, G*n_cell),
    or (G*n_cell,) for diagonal recurrent weights; `bias` (G*n_cell,)."""

    n_cell: int
    n_output: int
    cifg: bool
    wx: np.ndarray
    wh: np.ndarray
    diagonal: bool
    bias: np.ndarray
    waux: np.ndarray | None = None
    peephole: tuple | None = None     # (c_to_i or None, c_to_f, c_to_o)
    ln: np.ndarray | None = None      # (G*n_cell,) layer-norm coefficients
    proj: np.ndarray | None = None    # (n_cell, n_output)
    proj_bias: np.ndarray | None = None


def gather_lstm(t: list, diagonal: bool = False, aux: list | None = None) -> LstmWeights:
    """LstmWeights from TFLite's LSTM slots (tensors or None), numbered as in the 24-input
    layout: 1-4 input_to_{i,f,c,o}, 5-8 recurrent_to_{i,f,c,o}, 9-11 cell_to_{i,f,o},
    12-15 {i,f,c,o} gate bias, 16/17 projection weights/bias, 20-23 layer-norm coefficients.
    `aux`: the aux_input_to_{i,f,c,o} weights, or None."""
    cifg = t[1] is None
    gates = [2, 3, 4] if cifg else [1, 2, 3, 4]
    wx = np.concatenate([_arr(t[k]).T for k in gates], axis=1)
    rec = [_arr(t[k + 4]) for k in gates]
    if diagonal:
        wh = np.concatenate(rec)
    else:
        wh = np.concatenate([r.T for r in rec], axis=1)
    n_cell = rec[0].shape[0]
    n_output = n_cell if diagonal else rec[0].shape[1]
    bias = np.concatenate([_arr(t[k + 11]) for k in gates])
    waux = None
    if aux is not None and aux[1] is not None:
        waux = np.concatenate([_arr(aux[k - 1]).T for k in gates], axis=1)
    peephole = None
    if t[10] is not None:
        peephole = (None if cifg else _arr(t[9]), _arr(t[10]), _arr(t[11]))
    ln = None
    if len(t) > 21 and t[21] is not None:
        ln = np.concatenate([_arr(t[k + 19]) for k in gates])
    proj = None if t[16] is None else _arr(t[16]).T
    proj_bias = _arr(t[17]) if len(t) > 17 else None
    if proj is not None:
        n_output = proj.shape[1]
    return LstmWeights(n_cell, n_output, cifg, np.ascontiguousarray(wx), wh, diagonal, bias,
                       waux, peephole, ln, proj, proj_bias)


# ---- float (and hybrid) forms ------------------------------------------------------------------
LSTM_REQUIRED = (0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19)


class LstmBase(RecurrentBase):
    """LSTM (one step): the 20- or 24-input layout (see gather_lstm; 18/19 the output and cell
    state), one output, the FULL kernel type; CIFG, peephole, layer-norm and projection inputs
    given consistently."""

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


class UnidirectionalSequenceLstmBase(SequenceForm, LstmBase):
    """An LSTM over a sequence (input 0 of rank 3, time_major or batch first)."""


# BIDIRECTIONAL_SEQUENCE_LSTM slots: 1-17 forward weights (as LSTM's 1-17), 18-34 backward
# ones, 35/36 forward state (h, c), 37/38 backward state, 39 aux input, 40-43 forward aux
# weights, 44-47 backward aux weights.
BW = 17


class BidirectionalSequenceLstmBase(BidirectionalBase):
    """BIDIRECTIONAL_SEQUENCE_LSTM: 48 inputs (slots above), both directions' weights
    gathered as LSTM's (`direction`, by `gather`: gather_lstm, or a hybrid form's own)."""

    state_slots = (35, 36, 37, 38)
    aux_input, aux_weights = 39, (40, 44)
    max_inputs = 48
    required = (0, *[k for k in LSTM_REQUIRED if 0 < k < 18],
                *[k + BW for k in LSTM_REQUIRED if 0 < k < 18], 35, 36, 37, 38)
    gather = staticmethod(gather_lstm)

    def validate(self) -> None:
        super().validate()
        if len(self.inputs) != 48:
            raise self.fail(f"takes 48 inputs, got {len(self.inputs)}")

    def direction(self, base: int, aux: int):
        slots = [None] + [self.slot(base + k) for k in range(1, 18)] + [None] * 6
        return self.gather(slots, aux=[self.slot(aux + k) for k in range(4)])

    def load(self):
        return self.direction(0, 40), self.direction(BW, 44)


# ---- the fully integer (8x8_16) form -----------------------------------------------------------
GATES = "ifco"


def fmul(a, b) -> np.float32:
    return F32(F32(a) * F32(b))


def fdiv(a, b) -> np.float32:
    return F32(F32(a) / F32(b))


class IntLstmParams:
    """Scale-dependent parameters of the fully integer LSTM, computed as TFLite's Prepare
    (lstm.cc / unidirectional_sequence_lstm.cc PopulateQuantizedLstmParams8x8_16) computes them:
    effective scales in float32 arithmetic (the power-of-two factors in double, as
    std::pow(2, int) makes them), then QuantizeMultiplier; quantized clips truncated toward
    zero; layer-norm variance guards max(1, int32(10000 * scale)).

    Multipliers (a, b) per gate for the input and recurrent matmuls and the peepholes,
    layer-norm multipliers and guards, hidden and projection multipliers, clips."""

    def __init__(self, kernel, gates: str, layer_norm: bool, peephole: bool, projection: bool,
                 inter_quant: list) -> None:
        k = kernel
        sc = k.scale
        x, h_state, c_state, y = k.slot(0), k.slot(18), k.slot(19), k.outputs[0]
        inter = [F32(2.0 ** -12)] * 4
        if layer_norm:
            inter = [F32(q.scale[0]) for q in inter_quant[:4]]
        inter.append(F32(inter_quant[4].scale[0]))
        self.hidden_zp = int(inter_quant[4].zero_point[0])
        ok, cs = checked_log2(sc(c_state))
        if not ok:
            raise k.fail(f"integer LSTM needs a power-of-two cell state scale, got {sc(c_state)}")
        if not -15 <= cs <= -9:
            raise k.fail(f"integer LSTM cell state scale 2^{cs} is outside 2^-15 .. 2^-9 (TFLite "
                         "evaluates tanh of the cell state only there)")
        self.cell_scale = cs
        sx, sh = F32(sc(x)), F32(sc(h_state))
        self.gate_in, self.gate_rec, self.peep, self.ln = {}, {}, {}, {}
        for g in gates:
            n = GATES.index(g)
            gi = inter[n]
            self.gate_in[g] = quantize_multiplier(fdiv(fmul(sc(k.slot(1 + n)), sx), gi))
            self.gate_rec[g] = quantize_multiplier(fdiv(fmul(sc(k.slot(5 + n)), sh), gi))
            if peephole and g != "c":
                w = k.slot(9 + "ifo".index(g))
                self.peep[g] = quantize_multiplier(F32(2.0 ** cs * float(F32(sc(w)))
                                                       / float(gi)))
            if layer_norm:
                ln_scale = F32(sc(k.slot(20 + n)))
                a, b = quantize_multiplier(ln_scale)
                self.ln[g] = (a, b, max(1, int(fmul(10000, ln_scale))))
        self.hidden = quantize_multiplier(F32(2.0 ** -15 / float(inter[4]) * 2.0 ** -15))
        self.proj = None
        if projection:
            self.proj = quantize_multiplier(fdiv(fmul(sc(k.slot(16)), inter[4]), sh))
        cell_clip, proj_clip = k.clips()
        self.cell_clip = 0
        if cell_clip > 0:
            self.cell_clip = int(np.clip(fdiv(cell_clip, sc(c_state)), -32768.0, 32767.0))
        self.proj_clip = 0
        if proj_clip > 0:
            v = int(np.clip(fdiv(proj_clip, sc(y)), -128.0, 127.0))
            self.proj_clip = ((v + 128) & 0xFF) - 128              # static_cast<int8_t>
        self.input_zp, self.state_zp = k.zero_point(x), k.zero_point(h_state)


class QLstmBase(LstmBase, QuantOpKernel):
    """The fully integer LSTM (TFLite's 8x8_16 form): int8 input, output and output state,
    int16 cell state, int8 input/recurrent/projection weights, int16 peephole weights and
    layer-norm coefficients, int32 biases, and 5 intermediates (the 4 gates' int16 scales, used
    with layer norm only, and the hidden state's int8 scale/zp). validate() checks them and
    computes `p` (IntLstmParams); the 8x8_8 form (12 intermediates) is refused."""

    dtypes = frozenset({I8})
    batch_major = False

    @classmethod
    def supports(cls, op, graph):
        return QuantOpKernel.supports.__func__(cls, op, graph)

    def validate(self) -> None:
        super().validate()
        graph = self.ctx.data.graph
        inter = list(getattr(self.op, "intermediates", None) or [])
        if len(inter) == 12:
            raise self.fail("the integer LSTM 8x8_8 form (12 intermediates) is not supported")
        if len(inter) != 5:
            raise self.fail(f"the integer LSTM needs 5 intermediate tensors, got {len(inter)}")
        self.cifg = self.slot(1) is None
        self.peephole = self.slot(10) is not None
        self.layer_norm = self.slot(21) is not None
        self.projection = self.slot(16) is not None
        self.gates = GATES[1:] if self.cifg else GATES
        self.check_types()
        quants = [graph.operands[i].quant for i in inter]
        for k, q in enumerate(quants):
            if q is None and (k == 4 or self.layer_norm):
                raise self.fail(f"integer LSTM intermediate {k} has no quantization parameters")
        self.p = IntLstmParams(self, self.gates, self.layer_norm, self.peephole,
                               self.projection, quants)
        self.nc, self.ni = self.slot(4).shape
        self.no = self.slot(8).shape[1]
        if self.peephole and self.no > self.nc:
            raise self.fail(f"integer LSTM peephole with n_output {self.no} > n_cell {self.nc} "
                            "reads past TFLite's cell state buffer")

    def check_types(self) -> None:
        want = {0: I8, 18: I8, 19: I16}
        for n, g in enumerate(GATES):
            if g in self.gates:
                want.update({1 + n: I8, 5 + n: I8, 12 + n: I32})
                if self.layer_norm:
                    want[20 + n] = I16
                if self.peephole and g != "c":
                    want[9 + "ifo".index(g)] = I16
        if self.projection:
            want[16] = I8
            if self.slot(17) is not None:
                want[17] = I32
        for i, dt in want.items():
            t = self.slot(i)
            if t is None:
                raise self.fail(f"integer LSTM input {i} is required")
            if t.dtype != dt:
                raise self.fail(f"integer LSTM input {i} ({t.name!r}) must be {dt}, not {t.dtype}")
            if dt != I32 and t.quant is None:
                raise self.fail(f"integer LSTM input {i} ({t.name!r}) has no scale")
        y = self.outputs[0]
        if y.dtype != I8 or y.quant is None:
            raise self.fail(f"integer LSTM output must be quantized int8, not {y.dtype}")


class QUnidirectionalSequenceLstmBase(SequenceForm, QLstmBase):
    """The integer LSTM over a sequence; a batch-major one runs batch by batch (n_batch = 1),
    which matters only for the peephole span."""

    def validate(self) -> None:
        super().validate()
        self.batch_major = not self.op.params.get("time_major", True)


__all__ = ["LstmWeights", "gather_lstm", "LSTM_REQUIRED", "LstmBase",
           "UnidirectionalSequenceLstmBase", "BW", "BidirectionalSequenceLstmBase", "GATES",
           "IntLstmParams", "QLstmBase", "QUnidirectionalSequenceLstmBase"]
