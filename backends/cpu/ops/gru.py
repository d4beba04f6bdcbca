"""Circle's GRU on NumPy (luci-interpreter PALGRU.h semantics; operand checks in
core/ops/gru.py). Accumulated in float64."""
from __future__ import annotations

import numpy as np

from ....core.ops.gru import GruBase
from .common import register


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


@register("GRU")
class GruLayer(GruBase):
    """Per step, with gx = W_x x + b_x, gh = W_h h + b_h split in thirds [z, r, n]:
    z = sigmoid(gx_z + gh_z), r = sigmoid(gx_r + gh_r), n = tanh(gx_n + r * gh_n),
    h = z * h + (1 - z) * n."""

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


__all__ = ["GruLayer"]
