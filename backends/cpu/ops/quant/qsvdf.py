"""SVDF, fully integer: int8 input and output, int16 state (a variable tensor), int8
weights_feature, int16 weights_time, optional int32 bias.

Matches TFLite's svdf.cc full-integer path (reference_ops::EvalIntegerSVDF; the builtin resolver
runs that reference code, there is no optimized form):
  * Prepare (core/ops/svdf.py QSvdfBase): effective_scale_1 = input scale * weights_feature
    scale / state scale and effective_scale_2 = state scale * weights_time scale / output
    scale, computed in double from the float32 scales in that order, then QuantizeMultiplier.
  * Eval: the flat state is shifted left by one; per (batch, filter) the int32 dot product of
    weights_feature with (input - input zero point) is rescaled by MultiplyByQuantizedMultiplier
    (scalar reference: SRDHM, then a rounding right shift with halves away from zero), clamped
    to int16 and written into the state's last memory column (the state is assumed symmetric:
    its zero point is ignored); scratch = int32 dot products of state and weights_time over
    memory; output = sum over rank + bias (int32), rescaled with effective_scale_2, plus the
    output zero point, clamped to int8.
  * TFLite accepts only the RELU fused activation here and does NOT apply it (the clamp is to
    the int8 range only); other activations make the interpreter fail, so they are refused.
int32 sums wrap as C++ int32 arithmetic does on the interpreter's platforms.
Verified bit-exact against the interpreter (tests/ops/test_q_recurrent.py).
The float form: backends/cpu/ops/svdf.py; the hybrid form: backends/cpu/ops/hybrid_svdf.py."""
from __future__ import annotations

import numpy as np

from .....core.ops.svdf import QSvdfBase
from .....core.quant import qmath
from .....core.quant.qlstm_math import int_matmul
from .base import I8, quantized, register

I64 = np.int64


@register("Svdf", when=quantized)
class QSvdfLayer(QSvdfBase):
    """inputs (x (batch, n_input) int8, weights_feature (filters, n_input) int8, weights_time
    (filters, memory) int16, bias (units,) int32 optional, state (batch, filters * memory)
    int16); output (batch, units) int8; rank option, units = filters / rank."""

    def load(self):
        wf = np.asarray(self.buf(1)).astype(I64)
        wt = np.asarray(self.buf(2)).astype(I64)
        bias = None if self.slot(3) is None else np.asarray(self.buf(3)).astype(I64)
        return np.ascontiguousarray(wf.T), wt, bias

    def run(self) -> None:
        wf_t, wt, bias = self.weights if self.weights is not None else self.load()
        x = np.asarray(self.buf(0)).astype(I64) - self.x_zp
        batch, n_input = x.shape
        flat = np.asarray(self.state(4)).reshape(-1).astype(I64)
        flat[:-1] = flat[1:]                                  # std::copy(state + 1, ...)
        state = flat.reshape(batch, self.filters, self.memory)
        acc = qmath.wrap_int32(int_matmul(x, wf_t, float(n_input) * 128 * 256))
        feat = qmath.multiply_by_quantized_multiplier(acc, self.m1, self.s1)
        state[:, :, -1] = np.clip(feat, -32768, 32767)
        scratch = np.einsum("bfm,fm->bf", state, wt)          # int64: exact
        out = scratch.reshape(batch, self.units, self.rank).sum(axis=-1)
        if bias is not None:
            out = out + bias
        out = qmath.multiply_by_quantized_multiplier(qmath.wrap_int32(out), self.m2, self.s2)
        qmath.clamp_cast(out + self.y_zp, -128, 127, I8, out=self.out)
        self.save(4, state)


__all__ = ["QSvdfLayer"]
