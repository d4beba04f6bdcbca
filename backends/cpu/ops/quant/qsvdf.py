"""SVDF, fully integer: int8 input and output, int16 state (a variable tensor), int8
weights_feature, int16 weights_time, optional int32 bias.

Matches TFLite's svdf.cc full-integer path (reference_ops::EvalIntegerSVDF; the builtin resolver
runs that reference code, there is no optimized form):
  * Prepare: effective_scale_1 = input scale * weights_feature scale / state scale and
    effective_scale_2 = state scale * weights_time scale / output scale, computed in double from
    the float32 scales in that order, then QuantizeMultiplier.
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
Verified bit-exact against the interpreter (tests/ops/test_q_recurrent.py)."""
from __future__ import annotations

import numpy as np

from ..rnn_lstm import RecurrentKernel
from .....core.quant import qmath
from .base import I8, I16, QuantKernel, quantized, register

I32 = np.dtype(np.int32)
I64 = np.int64


def int_matmul(a: np.ndarray, b: np.ndarray, bound: float) -> np.ndarray:
    """Exact int64 a @ b for integer arrays whose partial sums stay below `bound` in
    magnitude: float32 BLAS while that is exact (< 2^24), float64 otherwise (< 2^53)."""
    dt = np.float32 if bound < float(1 << 24) else np.float64
    return np.matmul(a.astype(dt), b.astype(dt)).astype(I64)


@register("Svdf", when=quantized)
class QuantSvdf(RecurrentKernel, QuantKernel):
    """inputs (x (batch, n_input) int8, weights_feature (filters, n_input) int8, weights_time
    (filters, memory) int16, bias (units,) int32 optional, state (batch, filters * memory)
    int16); output (batch, units) int8; rank option, units = filters / rank."""

    dtypes = frozenset({I8})
    state_slots = (4,)
    required = (0, 1, 2, 4)
    max_inputs = 5

    @classmethod
    def supports(cls, op, graph):
        return QuantKernel.supports.__func__(cls, op, graph)

    def validate(self) -> None:
        if self.op.params.get("fused_activation_function", "NONE") != "RELU":
            raise self.fail("TFLite's integer SVDF supports only the RELU fused activation "
                            f"(got {self.op.params.get('fused_activation_function')})")
        super().validate()
        x, wf, wt, bias, state = (self.slot(i) for i in range(5))
        y = self.outputs[0]
        for t, dt, what in ((wf, I8, "weights_feature"), (wt, I16, "weights_time"),
                            (state, I16, "state"), (y, I8, "output")):
            if t.dtype != dt or t.quant is None:
                raise self.fail(f"integer SVDF needs a quantized {dt} {what}, got {t.dtype}"
                                + ("" if t.quant is not None else " without scale"))
        if bias is not None and bias.dtype != I32:
            raise self.fail(f"integer SVDF needs an int32 bias, got {bias.dtype}")
        if len(wf.shape) != 2 or len(wt.shape) != 2 or wt.shape[0] != wf.shape[0]:
            raise self.fail(f"weights_feature {wf.shape} and weights_time {wt.shape} must be "
                            "2-D with the same number of filters")
        self.rank = int(self.op.params.rank)
        self.filters, self.memory = wt.shape
        if self.rank <= 0 or self.filters % self.rank:
            raise self.fail(f"{self.filters} filters do not divide into rank {self.rank}")
        self.units = self.filters // self.rank
        if bias is not None and tuple(bias.shape) != (self.units,):
            raise self.fail(f"bias shape {bias.shape} is not ({self.units},)")
        s = self.scale
        e1 = float(s(x)) * float(s(wf)) / float(s(state))
        e2 = float(s(state)) * float(s(wt)) / float(s(y))
        self.m1, self.s1 = (int(v) for v in qmath.quantize_multiplier(e1))
        self.m2, self.s2 = (int(v) for v in qmath.quantize_multiplier(e2))
        self.x_zp, self.y_zp = self.zero_point(x), self.zero_point(y)

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


__all__ = ["QuantSvdf", "int_matmul"]
