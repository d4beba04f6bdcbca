"""SVDF (float32) on NumPy. Operand checks and the rank option are core/ops/svdf.py's. Hybrid
form: hybrid_svdf.py; the fully integer form: quant/qsvdf.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.svdf import SvdfBase
from .common import register
from .rnn_cell import F32, act_fn


@register("Svdf")
class SvdfLayer(SvdfBase):
    """Each run shifts the state left by one, stores the feature projection of x in the last
    column, and sums state * weights_time over memory and rank."""

    def validate(self) -> None:
        super().validate()
        self.activate = act_fn(self.act)

    def load(self):
        bias = None if self.slot(3) is None else np.asarray(self.buf(3), F32)
        return np.asarray(self.buf(1), F32), np.asarray(self.buf(2), F32), bias

    def run(self) -> None:
        wf, wt, bias = self.weights if self.weights is not None else self.load()
        x = self.buf(0)
        batch, filters = x.shape[0], wf.shape[0]
        state = np.array(self.state(4), F32).reshape(batch, filters, self.memory)
        state[:, :, :-1] = state[:, :, 1:]
        state[:, :, -1] = np.matmul(x, wf.T)
        scratch = np.einsum("bfm,fm->bf", state, wt)
        out = scratch.reshape(batch, filters // self.rank, self.rank).sum(axis=-1)
        if bias is not None:
            out = out + bias
        self.out[...] = self.activate(out.astype(F32, copy=False))
        self.save(4, state)


__all__ = ["SvdfLayer"]
