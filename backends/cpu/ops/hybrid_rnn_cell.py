"""The arithmetic of TFLite's hybrid (dynamic-range quantized) recurrent cells: float32
activations and state, int8 weight matrices with a per-tensor scale.

Every matrix product W v of the float cells becomes, per time step: quantize each batch row of
v to int8 (symmetric, or asymmetric with `asymmetric_quantize_inputs`; see
hybrid_base.quantize_rows), accumulate int8 x int8 products exactly, subtract zero point x row sum
of W, and rescale by float32(row scale x weight scale). Each product is accumulated onto the
gate in turn (bias first, then input, aux input, recurrent state), as TFLite's kernels do.
Peephole weights are int8 too and are dequantized (q * scale) before use; biases and layer-norm
coefficients stay float32. The rest of the cell (gates, clipping, layer norm, the activation
NONE quirk of the output) is the float cell's (rnn_cell). The kernels: hybrid_lstm.py,
hybrid_rnn.py, hybrid_svdf.py.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .hybrid_base import quantize_rows, rescale
from .rnn_cell import act_fn, layer_norm, sigmoid

F32 = np.float32
I8 = np.dtype(np.int8)


class QMatrix:
    """An int8 weight matrix (rows, cols) with its per-tensor scale and row sums."""

    def __init__(self, tensor, what: str = "weights") -> None:
        if tensor.dtype != I8 or tensor.quant is None or tensor.buffer is None:
            raise ValueError(f"hybrid {what} must be int8 constants with a scale")
        scale = np.asarray(tensor.quant.scale, F32).reshape(-1)
        if scale.size != 1:
            raise ValueError(f"hybrid {what} need one per-tensor scale, got {scale.size}")
        if np.any(np.asarray(tensor.quant.zero_point) != 0):
            raise ValueError(f"hybrid {what} must be symmetric (zero point 0)")
        q = np.asarray(tensor.buffer).astype(np.int64)
        if q.ndim != 2:
            raise ValueError(f"hybrid {what} must be 2-D, got {q.shape}")
        self.q = q
        self.qt = np.ascontiguousarray(q.T)
        self.scale = scale[0]
        self.row_sums = q.sum(axis=1)
        self.rows, self.cols = q.shape


class QRows:
    """One quantization of a (batch, n) float32 block, shared by every product that reads it."""

    def __init__(self, v: np.ndarray, asym: bool) -> None:
        self.q, self.s, self.zp = quantize_rows(np.asarray(v, F32), asym)
        self.q = self.q.astype(np.int64)
        self.asym = asym

    def times(self, w: QMatrix) -> np.ndarray:
        """float32 (batch, w.rows): the rescaled integer product of these rows and w^T."""
        return rescale(self.q @ w.qt, self.zp if self.asym else None, w.row_sums, self.s,
                       w.scale)


class HybridRecurrent:
    """Mixin of the hybrid recurrent kernels (listed before the float kernel among the bases):
    reads `asymmetric_quantize_inputs` and gathers the constant weights (`load`) once in
    validate(), so that malformed ones fail at compile time."""

    def validate(self) -> None:
        super().validate()
        self.asym = bool(self.op.params.get("asymmetric_quantize_inputs", False))
        if not self.constant:
            raise self.fail(f"hybrid {self.op.type} needs constant weights")
        try:
            self.weights = self.load()
        except ValueError as e:
            raise self.fail(str(e)) from None

    def prepare(self) -> None:
        """Nothing: validate() gathered the weights (RecurrentBase.prepare would gather them
        again)."""


class HybridWeights(HybridRecurrent):
    """Mixin of the hybrid LSTM and RNN kernels: accepts int8 weights; the data and state
    inputs stay float32."""

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


def dequantize_vector(tensor) -> np.ndarray:
    """float32 q * scale of an int8 vector with a per-tensor scale (peephole weights); float32
    vectors pass through."""
    if tensor.dtype == I8:
        scale = np.asarray(tensor.quant.scale, F32).reshape(-1)
        if scale.size != 1:
            raise ValueError("hybrid peephole weights need one per-tensor scale")
        return np.asarray(tensor.buffer).astype(F32) * scale[0]
    return np.asarray(tensor.buffer, F32)


# ---- basic RNN ---------------------------------------------------------------------------------
def hybrid_rnn_sequence(x: np.ndarray, h: np.ndarray, wx: QMatrix, wh: QMatrix, bias: np.ndarray,
                        act: str | None, asym: bool, aux: np.ndarray | None = None,
                        waux: QMatrix | None = None, reverse: bool = False):
    """h = act(b + Wx x + Waux aux + Wh h) over x (time, batch, n_input), each product hybrid;
    returns (outputs (time, batch, units), h)."""
    f = act_fn(act)
    out = np.empty((x.shape[0], x.shape[1], wx.rows), F32)
    h = np.array(h, F32, copy=True)
    bias = np.asarray(bias, F32)
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in order:
        z = np.broadcast_to(bias, (x.shape[1], wx.rows)).astype(F32)
        z = z + QRows(x[t], asym).times(wx)
        if aux is not None and waux is not None:
            z = z + QRows(aux[t], asym).times(waux)
        z = z + QRows(h, asym).times(wh)
        h = f(z).astype(F32, copy=False)
        out[t] = h
    return out, h


# ---- LSTM --------------------------------------------------------------------------------------
@dataclass
class HybridLstmWeights:
    """One direction's hybrid LSTM parameters, per gate in the order (i, f, g, o); the input
    gate's entries are None under CIFG."""

    n_cell: int
    n_output: int
    cifg: bool
    wx: list
    wh: list
    bias: list
    waux: list | None = None
    peephole: list | None = None
    ln: list | None = None
    proj: QMatrix | None = None
    proj_bias: np.ndarray | None = None


def gather_hybrid_lstm(t: list, aux: list | None = None) -> HybridLstmWeights:
    """HybridLstmWeights from TFLite's LSTM slots (tensors or None), numbered as in the 24-input
    layout (see core/ops/lstm.py gather_lstm); `aux`: the aux_input_to_{i,f,c,o} weights or None."""
    cifg = t[1] is None

    def per_gate(base, make):
        return [None if (k == 0 and cifg) or t[base + k] is None else make(t[base + k])
                for k in range(4)]
    wx = per_gate(1, lambda a: QMatrix(a, "input weights"))
    wh = per_gate(5, lambda a: QMatrix(a, "recurrent weights"))
    bias = per_gate(12, lambda a: np.asarray(a.buffer, F32))
    n_cell = wx[1].rows
    n_output = wh[1].cols
    waux = None
    if aux is not None and aux[1] is not None:
        waux = [None if (k == 0 and cifg) else QMatrix(aux[k], "aux weights") for k in range(4)]
    peephole = None
    if t[10] is not None:
        peephole = [None if cifg else dequantize_vector(t[9]), dequantize_vector(t[10]), None,
                    dequantize_vector(t[11])]
    ln = None
    if len(t) > 21 and t[21] is not None:
        ln = [None if (k == 0 and cifg) else np.asarray(t[20 + k].buffer, F32)
              for k in range(4)]
    proj = None if t[16] is None else QMatrix(t[16], "projection weights")
    proj_bias = np.asarray(t[17].buffer, F32) if len(t) > 17 and t[17] is not None else None
    if proj is not None:
        n_output = proj.rows
    return HybridLstmWeights(n_cell, n_output, cifg, wx, wh, bias, waux, peephole, ln, proj,
                             proj_bias)


def _gate(k: int, w: HybridLstmWeights, qx: QRows, qa: QRows | None, qh: QRows,
          c: np.ndarray | None, batch: int) -> np.ndarray:
    """The pre-activation of gate k: bias (or 0 under layer norm) + the products + peephole,
    then layer norm, coefficient and bias when the cell has layer norm."""
    nc = w.n_cell
    if w.ln is None:
        z = np.broadcast_to(w.bias[k], (batch, nc)).astype(F32)
    else:
        z = np.zeros((batch, nc), F32)
    z = z + qx.times(w.wx[k])
    if qa is not None and w.waux is not None:
        z = z + qa.times(w.waux[k])
    z = z + qh.times(w.wh[k])
    if w.peephole is not None and c is not None:
        z = z + w.peephole[k] * c
    if w.ln is not None:
        z = layer_norm(z) * w.ln[k] + w.bias[k]
    return z.astype(F32, copy=False)


def hybrid_lstm_sequence(x: np.ndarray, h: np.ndarray, c: np.ndarray, w: HybridLstmWeights,
                         act: str | None, cell_clip: float, proj_clip: float, asym: bool,
                         aux: np.ndarray | None = None, reverse: bool = False):
    """The hybrid LSTM over x (time, batch, n_input) from state h (batch, n_output) and
    c (batch, n_cell); returns (outputs (time, batch, n_output), h, c)."""
    steps, batch = x.shape[0], x.shape[1]
    g_act = act_fn(act)
    out = np.empty((steps, batch, w.n_output), F32)
    h = np.array(h, F32, copy=True)
    c = np.array(c, F32, copy=True)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        qx = QRows(x[t], asym)
        qa = QRows(aux[t], asym) if aux is not None and w.waux is not None else None
        qh = QRows(h, asym)
        f = sigmoid(_gate(1, w, qx, qa, qh, c, batch))
        i = F32(1) - f if w.cifg else sigmoid(_gate(0, w, qx, qa, qh, c, batch))
        g = g_act(_gate(2, w, qx, qa, qh, None, batch))
        c = (f * c + i * g).astype(F32, copy=False)
        if cell_clip > 0:
            c = np.clip(c, -cell_clip, cell_clip)
        o = sigmoid(_gate(3, w, qx, qa, qh, c, batch))
        # activation NONE: TFLite leaves its scratch (the cell gate) in place of act(c)
        hp = (o * (g if act in (None, "NONE") else g_act(c))).astype(F32, copy=False)
        if w.proj is not None:
            base = (np.zeros((batch, w.proj.rows), F32) if w.proj_bias is None
                    else np.broadcast_to(w.proj_bias, (batch, w.proj.rows)).astype(F32))
            hp = base + QRows(hp, asym).times(w.proj)
            if proj_clip > 0:
                hp = np.clip(hp, -proj_clip, proj_clip)
        h = hp.astype(F32, copy=False)
        out[t] = h
    return out, h, c


__all__ = ["QMatrix", "QRows", "HybridRecurrent", "HybridWeights", "HybridLstmWeights",
           "gather_hybrid_lstm", "hybrid_lstm_sequence", "hybrid_rnn_sequence",
           "dequantize_vector"]
