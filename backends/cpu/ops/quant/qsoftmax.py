"""Quantized SOFTMAX for int8 and uint8 (-> the same type, or -> int16), matching the
interpreter's optimized SoftmaxInt8LUT (activations.cc, kGenericOptimized). The exp table and
the output checks: core/ops/softmax.py. Float form: backends/cpu/ops/softmax.py.

  table[255 - v] = expf(-input_scale * beta * v) for v in 0..255 (float32, PopulateSoftmaxLookupTable)
  per row: m = max of the inputs seen as bytes (int8 offset by 0x80; the offset cancels out),
           e_j = table[255 - m + byte_j], sum = e_0 + e_1 + ... in float32, left to right,
           inv = 1 / (sum * output_scale), p_j = e_j * inv (float32),
           int8: round(p_j) (halves away from zero) + zp; uint8: int(p_j + 0.5f); clamped.
The uint8 form ignores the output zero point (QuantizeSoftmaxOutput<uint8_t> on x86 adds none),
and the interpreter accepts any uint8 output parameters: reproduced as is (checked).

An int16 output of an 8-bit input (SoftmaxQuantized<int8_t or uint8_t, int16_t>, the same code)
rounds as int8 does and accepts any output parameters (checked). int16 input SOFTMAX is in
qsoftmax16, LOG_SOFTMAX in qlogsoftmax.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.softmax import QSoftmaxBase
from .....core.quant.qmath import round_half_away
from .base import I8, U8, quantized, register

F32 = np.float32


def exp_rows(table: np.ndarray, v: np.ndarray):
    """Per row of the last axis of 8-bit values v (int64): the row max m, e_j = table[255 - m +
    v_j] and their float32 sum, added left to right: (m, e, sum), keeping the last axis."""
    m = v.max(axis=-1, keepdims=True)
    e = table[255 - m + v]
    return m, e, np.cumsum(e, axis=-1, dtype=F32)[..., -1:]      # sequential float32 sum


@register("Softmax", dtypes=(I8, U8), when=quantized)
class QSoftmaxLayer(QSoftmaxBase):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        if x.size == 0:
            return
        _, e, total = exp_rows(self.table, x.astype(np.int64))
        inv = (F32(1) / (total * self.out_scale)).astype(F32)
        p = (e * inv).astype(F32)
        if out.dtype != U8:       # int8, and int16 (8-bit input, any output parameters)
            # std::round: halves away from zero (in float64, exact for float32 values)
            q = round_half_away(p.astype(np.float64)).astype(np.int64) + self.zp
        else:       # the uint8 rounding of the interpreter adds no zero point
            q = np.trunc(p + F32(0.5)).astype(np.int64)
        np.copyto(out, np.clip(q, self.lo, self.hi), casting="unsafe")
