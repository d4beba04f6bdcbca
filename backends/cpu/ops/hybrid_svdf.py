"""Hybrid (dynamic-range quantized) SVDF: float32 input, state and output; int8 constant
weights_feature and weights_time with a per-tensor scale; optional float32 bias.

Follows TFLite's svdf.cc hybrid path (reference_ops::EvalHybridSVDF): the flat state is shifted
left by one; unless the whole input is zero, each batch row is quantized to int8 (symmetric, or
asymmetric with `asymmetric_quantize_inputs`: hybrid_base.quantize_rows), the int8 x int8 products
with weights_feature are accumulated exactly (minus zero point x row sum when asymmetric) and
rescaled by float32(row scale x weights_feature scale); that feature column goes into the
state's last memory slot. The rest is float: weights_time dequantized once (q * scale in
float32), state . weights_time over memory, the sum over rank, the bias and the activation.

Registered for SVDF's hybrid form (`when=hybrid`, core/ops/forms.py): float32 input and an
int8 constant weights_feature with a scale. The float form: svdf.py; the fully integer form:
quant/qsvdf.py.
"""
from __future__ import annotations

import numpy as np

from ....core.ops.forms import hybrid
from .common import register
from .hybrid_rnn_cell import HybridRecurrent, QMatrix, QRows
from .svdf import SvdfLayer

F32 = np.dtype(np.float32)
I8 = np.dtype(np.int8)


@register("Svdf", when=hybrid)
class HybridSvdfLayer(HybridRecurrent, SvdfLayer):
    """inputs (x (batch, n_input) float32, weights_feature (filters, n_input) int8,
    weights_time (filters, memory) int8, bias (units,) float32 optional, state
    (batch, filters * memory) float32 variable)."""

    @classmethod
    def supports(cls, op, graph):
        for k, i in enumerate(op.inputs):
            if i < 0:
                continue
            o = graph.operands[i]
            want = (I8,) if k in (1, 2) else (F32,)
            if o.dtype not in want:
                return False, (f"hybrid cpu SVDF takes float32 data and int8 weights; tensor "
                               f"{o.name!r} is {o.type_name}")
        for i in op.outputs:
            if i >= 0 and graph.operands[i].dtype != F32:
                return False, "hybrid cpu SVDF writes float32 outputs"
        return True, ""

    def validate(self) -> None:
        super().validate()
        if self.weights[0].rows != self.filters():
            raise self.fail(f"weights_feature has {self.weights[0].rows} rows, weights_time "
                            f"{self.filters()}")

    def filters(self) -> int:
        return int(self.inputs[2].shape[0])

    def load(self):
        wf = QMatrix(self.slot(1), "weights_feature")
        wt_q = QMatrix(self.slot(2), "weights_time")
        wt = (wt_q.q.astype(F32) * np.float32(wt_q.scale)).astype(F32)
        bias = None if self.slot(3) is None else np.asarray(self.buf(3), F32)
        return wf, wt, bias

    def run(self) -> None:
        wf, wt, bias = self.weights
        x = np.asarray(self.buf(0), F32)
        batch, filters = x.shape[0], wf.rows
        flat = np.array(self.state(4), F32).reshape(-1)
        flat[:-1] = flat[1:]                                   # std::copy(state + 1, ...)
        state = flat.reshape(batch, filters, self.memory)
        if np.any(x != 0):
            state[:, :, -1] = QRows(x, self.asym).times(wf)
        else:                                                  # TFLite skips the product
            state[:, :, -1] = 0
        scratch = np.einsum("bfm,fm->bf", state, wt).astype(F32)
        out = scratch.reshape(batch, filters // self.rank, self.rank).sum(axis=-1, dtype=F32)
        if bias is not None:
            out = out + bias
        self.out[...] = self.activate(out.astype(F32, copy=False))
        self.save(4, state)


__all__ = ["HybridSvdfLayer"]
