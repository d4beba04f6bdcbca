"""Circle-only builtins: GRU. (INSTANCE_NORM, RMS_NORM: norm.py; ROPE: rope.py.)

Semantics follow Samsung ONE (luci-interpreter PALGRU.h); accumulated in float64.
"""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, register


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


@register("GRU")
class GRULayer(CpuKernel):
    """Circle GRU (luci-interpreter semantics). Inputs: x (T, 1, I), W_x (3H, I), b_x (3H),
    W_h (3H, H), b_h (3H), state h0 (1, H) -- in the schema's names input, hidden_hidden,
    hidden_hidden_bias, hidden_input, hidden_input_bias, state. Per step, with gx = W_x x + b_x,
    gh = W_h h + b_h split in thirds [z, r, n]:
    z = sigmoid(gx_z + gh_z), r = sigmoid(gx_r + gh_r), n = tanh(gx_n + r * gh_n),
    h = z * h + (1 - z) * n. The output is the last h (the state's shape). Like luci-interpreter,
    axis 0 is always time (time_major is not consulted)."""

    def validate(self) -> None:
        ins = self.inputs
        x, wx, wh, st = ins[0], ins[1], ins[3], ins[5]
        if len(x.shape) != 3:
            raise self.fail(f"input must be 3-D (time, batch, features), got {x.shape}")
        batch = x.shape[1]
        if len(wx.shape) != 2 or len(wh.shape) != 2 or wx.shape[0] != wh.shape[0] \
                or wx.shape[0] % 3:
            raise self.fail(f"weights {wx.shape} and {wh.shape} must be (3H, I) and (3H, H)")
        hidden = wx.shape[0] // 3
        if wh.shape[1] != hidden or wx.shape[1] != x.shape[2]:
            raise self.fail(f"weights {wx.shape}, {wh.shape} do not fit input {x.shape} with "
                            f"hidden size {hidden}")
        if int(np.prod(st.shape)) != hidden * batch:
            raise self.fail(f"state {st.shape} does not hold batch {batch} x {hidden}")
        for i in (2, 4):
            if ins[i] is not None and int(np.prod(ins[i].shape)) != 3 * hidden:
                raise self.fail(f"bias {ins[i].shape} must have {3 * hidden} elements")
        if self.op.params.get("return_sequences", False):
            raise self.fail("GRU with return_sequences is not supported")
        if self.op.params.get("fused_activation_function", "NONE") not in ("NONE", None):
            raise self.fail("GRU with a fused activation is not supported")

    def run(self) -> None:
        x = self.buf(0).astype(np.float64)
        wx, wh = self.buf(1).astype(np.float64), self.buf(3).astype(np.float64)
        bx, bh = self.buf(2), self.buf(4)
        h = self.buf(5).astype(np.float64).reshape(x.shape[1], -1)
        n_h = h.shape[1]
        for t in range(x.shape[0]):
            gx = x[t] @ wx.T
            gh = h @ wh.T
            if bx is not None:
                gx = gx + bx.reshape(-1)
            if bh is not None:
                gh = gh + bh.reshape(-1)
            z = _sigmoid(gx[:, :n_h] + gh[:, :n_h])
            r = _sigmoid(gx[:, n_h:2 * n_h] + gh[:, n_h:2 * n_h])
            n = np.tanh(gx[:, 2 * n_h:] + r * gh[:, 2 * n_h:])
            h = z * h + (1.0 - z) * n
        np.copyto(self.out, h.reshape(self.out.shape), casting="same_kind")
