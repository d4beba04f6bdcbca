"""Quantized SOFTMAX for int8 and uint8 (-> the same type, or -> int16), matching the
interpreter's optimized SoftmaxInt8LUT (activations.cc, kGenericOptimized):

  table[255 - v] = expf(-input_scale * beta * v) for v in 0..255 (float32, PopulateSoftmaxLookupTable)
  per row: m = max of the inputs seen as bytes (int8 offset by 0x80; the offset cancels out),
           e_j = table[255 - m + byte_j], sum = e_0 + e_1 + ... in float32, left to right,
           inv = 1 / (sum * output_scale), p_j = e_j * inv (float32),
           int8: round(p_j) (halves away from zero) + zp; uint8: int(p_j + 0.5f); clamped.
The uint8 form ignores the output zero point (QuantizeSoftmaxOutput<uint8_t> on x86 adds none),
and the interpreter accepts any uint8 output parameters: reproduced as is (checked).

The interpreter requires the int8 output's zero point to be -128 and its scale within 0.1% of 1/256;
other output parameters are refused for int8. An int16 output of an 8-bit input (SoftmaxQuantized
<int8_t or uint8_t, int16_t>, the same code) rounds as int8 does and accepts any output parameters
(checked). int16 input SOFTMAX is in qsoftmax16, LOG_SOFTMAX in qlogsoftmax.
"""
from __future__ import annotations

import numpy as np

from .....core.quant import qlut_math as qm
from .base import I8, I16, U8, QuantKernel, quantized, register
from .....core.quant.qmath import round_half_away

F32 = np.float32


def softmax_exp_table(input_scale: float, beta: float = 1.0) -> np.ndarray:
    """PopulateSoftmaxLookupTable: table[255 - v] = expf(-input_scale * beta * v), float32."""
    scale = F32(-F32(input_scale) * F32(beta))
    table = np.empty(256, F32)
    for v in range(256):
        table[255 - v] = qm.expf(F32(scale * F32(v)))
    return table


def exp_rows(table: np.ndarray, v: np.ndarray):
    """Per row of the last axis of 8-bit values v (int64): the row max m, e_j = table[255 - m +
    v_j] and their float32 sum, added left to right: (m, e, sum), keeping the last axis."""
    m = v.max(axis=-1, keepdims=True)
    e = table[255 - m + v]
    return m, e, np.cumsum(e, axis=-1, dtype=F32)[..., -1:]      # sequential float32 sum


@register("Softmax", dtypes=(I8, U8), when=quantized)
class QSoftmax(QuantKernel):
    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype and y.dtype != I16:
            raise self.fail(f"quantized SOFTMAX {x.dtype} -> {y.dtype} is not supported "
                            f"(same input and output type, or int16 output, only)")
        if x.quant.per_channel or y.quant.per_channel:
            raise self.fail("SOFTMAX is quantized per tensor only")
        if y.dtype == I8 and (self.zero_point(y) != -128
                              or abs(self.scale(y) - 1 / 256) > 0.001 / 256):
            raise self.fail(f"int8 SOFTMAX needs the output scale 1/256 and zero point -128, "
                            f"not {self.scale(y)} and {self.zero_point(y)}")
        self.table = softmax_exp_table(self.scale(x), self.op.params.get("beta", 1.0))
        self.out_scale = F32(self.scale(y))
        self.zp = self.zero_point(y)

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
        info = np.iinfo(out.dtype)
        np.copyto(out, np.clip(q, info.min, info.max), casting="unsafe")

