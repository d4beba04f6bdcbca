"""The float math of TFLite's recurrent cells (LSTM with its optional parts, basic RNN),
shared by the LSTM / RNN kernels. Semantics follow TFLite's reference kernels (lstm_eval):

  gate = W_x x + W_aux aux + W_h h_prev [+ w_peephole * c] ; with layer norm:
         normalize(gate) * coeff + bias, else gate + bias ; then sigmoid (i, f, o) or the fused
         activation (cell gate g). CIFG (no input-gate weights): i = 1 - f.
  c = f * c_prev + i * g, clipped to +-cell_clip when cell_clip > 0; the output gate's peephole
  reads the new c. h = o * act(c) (o * g for activation NONE, as TFLite does), then h = P h + p_bias (clipped to +-proj_clip when > 0).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
