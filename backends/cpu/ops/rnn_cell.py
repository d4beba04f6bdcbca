"""The float math of TFLite's recurrent cells (LSTM with its optional parts, basic RNN),
shared by the cpu kernels (lstm.py, rnn.py, svdf.py; hybrid_rnn_cell.py reuses the gate math);
the LSTM weights come gathered per gate (core/ops/lstm.py gather_lstm). Semantics follow
TFLite's reference kernels (lstm_eval):

  gate = W_x x + W_aux aux + W_h h_prev [+ w_peephole * c] ; with layer norm:
         normalize(gate) * coeff + bias, else gate + bias ; then sigmoid (i, f, o) or the fused
         activation (cell gate g). CIFG (no input-gate weights): i = 1 - f.
  c = f * c_prev + i * g, clipped to +-cell_clip when cell_clip > 0; the output gate's peephole
  reads the new c. h = o * act(c) (o * g for activation NONE, as TFLite does), then h = P h + p_bias (clipped to +-proj_clip when > 0).
"""
from __future__ import annotations

import numpy as np

from ....core.ops.lstm import LstmWeights
from .common import activation

F32 = np.float32
LN_EPSILON = F32(1e-8)     # TFLite's MeanStddevNormalization constant


def sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (F32(1) / (F32(1) + np.exp(-x))).astype(F32, copy=False)


def act_fn(name: str | None):
    """Not-in-place form of a fused activation (identity for NONE)."""
    inplace = activation(name)
    if inplace is None:
        return lambda a: a

    def apply(a: np.ndarray) -> np.ndarray:
        a = np.array(a, F32, copy=True)
        inplace(a)
        return a
    return apply


def layer_norm(x: np.ndarray) -> np.ndarray:
    """Normalize each row of x to zero mean and unit variance (no scale or shift)."""
    mean = x.mean(axis=-1, keepdims=True, dtype=F32)
    d = x - mean
    var = (d * d).mean(axis=-1, keepdims=True, dtype=F32)
    return (d / np.sqrt(var + LN_EPSILON)).astype(F32, copy=False)


def lstm_sequence(x: np.ndarray, h: np.ndarray, c: np.ndarray, w: LstmWeights, act: str | None,
                  cell_clip: float, proj_clip: float, aux: np.ndarray | None = None,
                  reverse: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run the LSTM over x (time, batch, n_input) from state h (batch, n_output) and
    c (batch, n_cell); returns (outputs (time, batch, n_output), h, c). `reverse` walks time
    backwards (the outputs stay at their time positions)."""
    steps, nc = x.shape[0], w.n_cell
    g_act = act_fn(act)
    xw = np.matmul(x.astype(F32, copy=False), w.wx)
    if aux is not None and w.waux is not None:
        xw += np.matmul(aux.astype(F32, copy=False), w.waux)
    if w.ln is None:
        xw += w.bias
    out = np.empty((steps, x.shape[1], w.n_output), F32)
    h = np.array(h, F32, copy=True)
    c = np.array(c, F32, copy=True)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    ng = 3 if w.cifg else 4
    split = (lambda v: [None] * (4 - ng) + [v[k * nc:(k + 1) * nc] for k in range(ng)])
    lnc = None if w.ln is None else split(w.ln)
    bias = None if w.ln is None else split(w.bias)

    def finish(gate, k):
        if lnc is not None:
            gate = layer_norm(gate) * lnc[k] + bias[k]
        return gate
    for step in order:
        z = xw[step] + _recurrent(h, w)
        i_g, f_g, g_g, o_g = [None] * (4 - ng) + [z[:, k * nc:(k + 1) * nc] for k in range(ng)]
        if w.peephole is not None:
            if not w.cifg:
                i_g = i_g + c * w.peephole[0]
            f_g = f_g + c * w.peephole[1]
        f = sigmoid(finish(f_g, 1))
        i = F32(1) - f if w.cifg else sigmoid(finish(i_g, 0))
        g = g_act(finish(g_g, 2))
        c = f * c + i * g
        if cell_clip > 0:
            c = np.clip(c, -cell_clip, cell_clip)
        if w.peephole is not None:
            o_g = o_g + c * w.peephole[2]
        o = sigmoid(finish(o_g, 3))
        # TFLite's activation NONE leaves its scratch buffer alone, which still holds the
        # cell gate: the output is then o * g, not o * c
        h = o * (g if act in (None, "NONE") else g_act(c))
        if w.proj is not None:
            h = np.matmul(h, w.proj)
            if w.proj_bias is not None:
                h = h + w.proj_bias
            if proj_clip > 0:
                h = np.clip(h, -proj_clip, proj_clip)
        h = h.astype(F32, copy=False)
        out[step] = h
    return out, h, c.astype(F32, copy=False)


def _recurrent(h: np.ndarray, w: LstmWeights) -> np.ndarray:
    if w.diagonal:
        ng = 3 if w.cifg else 4
        return np.tile(h, (1, ng)) * w.wh
    return np.matmul(h, w.wh)


def rnn_sequence(x: np.ndarray, h: np.ndarray, wx: np.ndarray, wh: np.ndarray, bias: np.ndarray,
                 act: str | None, aux: np.ndarray | None = None, waux: np.ndarray | None = None,
                 reverse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Basic RNN over x (time, batch, n_input): h = act(x Wx^T + aux Waux^T + h Wh^T + b), with
    Wx (units, n_input), Wh (units, units); returns (outputs (time, batch, units), h)."""
    f = act_fn(act)
    xw = np.matmul(x.astype(F32, copy=False), np.asarray(wx, F32).T) + np.asarray(bias, F32)
    if aux is not None and waux is not None:
        xw += np.matmul(aux.astype(F32, copy=False), np.asarray(waux, F32).T)
    wht = np.asarray(wh, F32).T
    out = np.empty(xw.shape, F32)
    h = np.array(h, F32, copy=True)
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for step in order:
        h = f(xw[step] + np.matmul(h, wht)).astype(F32, copy=False)
        out[step] = h
    return out, h
