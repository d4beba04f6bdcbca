"""QUANTIZE: float32 -> int8/uint8/int16 (AffineQuantize), and requantization between quantized
types (int8/uint8/int16 -> int8/uint8/int16) with TFLite's Requantize arithmetic:
    out = MultiplyByQuantizedMultiplier(in - in_zp, M, shift) + out_zp, clamped,
with M, shift = QuantizeMultiplier(in_scale / out_scale) in double precision (quantize.cc).
From int8/uint8 the interpreter's optimized Requantize runs 16 lanes at a time with the vector
rounding (qmath.multiply_by_quantized_multiplier_vector) and the tail with the scalar one; from
int16 it is scalar throughout. Both checked exhaustively against the interpreter.

`QuantizeBase` holds the checks and the arithmetic (`fn`, and for 8-bit inputs the 256-entry
tables of both roundings) that the cpu kernel (backends/cpu/ops/quant/quantize.py) runs and
acl_neon looks up (backends/acl_neon/ops/quant_eltwise.py)."""
from __future__ import annotations

import numpy as np

from ..backend.quantization import channel_axis, quantize
from ..quant import qmath
from .forms import is_quantized
from .quant_base import Q_DTYPES, QuantOpKernel

F32 = np.dtype(np.float32)
LANES = 16          # the optimized Requantize's vector width (8-bit inputs)


class QuantizeBase(QuantOpKernel):
    dtypes = Q_DTYPES | {F32}

    @classmethod
    def supports(cls, op, graph):
        x, y = graph.operands[op.inputs[0]], graph.operands[op.outputs[0]]
        if not is_quantized(graph, op.outputs[0]):
            return False, f"QUANTIZE needs a quantized int8/uint8/int16 output, not {y.dtype}"
        if y.quant.per_channel and x.dtype != F32:
            return False, "QUANTIZE requantizes per-tensor only"
        if x.dtype != F32 and not is_quantized(graph, op.inputs[0]):
            return False, f"QUANTIZE input must be float32 or quantized, not {x.dtype}"
        return super().supports(op, graph)

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype == F32:
            q = y.quant
            self.fn = lambda a, out: np.copyto(out, quantize(
                a, q.scale, q.zero_point, y.dtype, channel_axis(q)))
            return
        real = np.float64(self.scale(x)) / np.float64(self.scale(y))
        m, s = qmath.quantize_multiplier(real)
        in_zp, out_zp = self.zero_point(x), self.zero_point(y)
        lo, hi = qmath.dtype_range(y.dtype)
        self.requant = (m, s, in_zp, out_zp, lo, hi)

        width = LANES if x.dtype.itemsize == 1 else 0

        def requantize(a, out):
            v = a.reshape(-1).astype(np.int64) - in_zp
            k = qmath.vector_part(v.size, width) if width else 0
            acc = np.empty_like(v)
            acc[:k] = qmath.multiply_by_quantized_multiplier_vector(v[:k], m, s)
            acc[k:] = qmath.multiply_by_quantized_multiplier(v[k:], m, s)
            qmath.clamp_cast(acc.reshape(a.shape) + out_zp, lo, hi, y.dtype, out=out)
        self.fn = requantize

    def requant_table(self, vector: bool) -> np.ndarray:
        """For an 8-bit input: the output for each of the 256 input values (indexed by the
        value's byte), with the vector or the scalar rounding."""
        m, s, in_zp, out_zp, lo, hi = self.requant
        x, y = self.inputs[0], self.outputs[0]
        values = np.arange(256, dtype=np.uint8).view(x.dtype).astype(np.int64) - in_zp
        mul = (qmath.multiply_by_quantized_multiplier_vector if vector
               else qmath.multiply_by_quantized_multiplier)
        return np.clip(mul(values, m, s) + out_zp, lo, hi).astype(y.dtype)
