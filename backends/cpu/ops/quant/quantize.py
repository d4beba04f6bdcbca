"""QUANTIZE: float32 -> int8/uint8/int16 (AffineQuantize), and requantization between quantized
types (int8/uint8/int16 -> int8/uint8/int16) with TFLite's Requantize arithmetic:
    out = MultiplyByQuantizedMultiplier(in - in_zp, M, shift) + out_zp, clamped,
with M, shift = QuantizeMultiplier(in_scale / out_scale) in double precision (quantize.cc).
From int8/uint8 the interpreter's optimized Requantize runs 16 lanes at a time with the vector
rounding (qmath.multiply_by_quantized_multiplier_vector) and the tail with the scalar one; from
int16 it is scalar throughout. Both checked exhaustively against the interpreter.
DEQUANTIZE and the other unary ops: backends/cpu/ops/elementwise.py, qunary.py."""
from __future__ import annotations

import numpy as np

from .....core.backend.quantization import channel_axis, quantize
from .....core.quant import qmath
from .base import Q_DTYPES, QuantOpKernel, is_quantized, register

F32 = np.dtype(np.float32)


@register("ElementwiseUnary.QUANTIZE")
class QuantizeLayer(QuantOpKernel):
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

        width = 16 if x.dtype.itemsize == 1 else 0

        def requantize(a, out):
            v = a.reshape(-1).astype(np.int64) - in_zp
            k = qmath.vector_part(v.size, width) if width else 0
            acc = np.empty_like(v)
            acc[:k] = qmath.multiply_by_quantized_multiplier_vector(v[:k], m, s)
            acc[k:] = qmath.multiply_by_quantized_multiplier(v[k:], m, s)
            qmath.clamp_cast(acc.reshape(a.shape) + out_zp, lo, hi, y.dtype, out=out)
        self.fn = requantize

    def run(self) -> None:
        self.fn(self.inputs[0].buffer, self.outputs[0].buffer)
