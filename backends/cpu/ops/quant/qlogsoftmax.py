"""Quantized LOG_SOFTMAX for int8 and uint8, bit-exact with the interpreter, which runs the float
lookup-table form (activations.cc LogSoftmaxPrepare/Eval, kGenericOptimized ->
optimized_ops::LogSoftmax(params, input_scale, ...)), not the gemmlowp fixed-point reference.
Prepare (output scale exactly 16/256 and zero point 127 (int8) / 255 (uint8), else refused; the
exp table table[255 - v] = expf(-input_scale * v), beta 1): core/ops/softmax.py. Float form:
backends/cpu/ops/softmax.py.

  per row of the last axis, with x the raw stored values (the input zero point cancels out):
           m = max(x), sum = table[255 - m + x_0] + table[255 - m + x_1] + ... (float32, in order),
           lse = logf(sum), pre = (input_scale * m + lse) / output_scale (float32),
           y_j = rint(input_scale / output_scale * x_j - pre) + zero_point (float32, rint rounds
           halves to even), clamped to the type.

Checked on every 8-bit input value in rows (forward, reversed, rolled, shuffled) for several input
scales, and on random tensors of ranks 1 to 4. int16 LOG_SOFTMAX is refused by the interpreter
(and so here: this class does not list int16).

logf is the C library's (called once per row through ctypes): NumPy's float32 log may round
differently, and a different lse shifts a whole row's rounding.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.softmax import QLogSoftmaxBase
from .....core.quant import qlut_math as qm
from .base import quantized, register
from .qsoftmax import exp_rows

F32 = np.float32


@register("LogSoftmax", when=quantized)
class QLogSoftmaxLayer(QLogSoftmaxBase):
    def run(self) -> None:
        x, out = self.inputs[0].buffer, self.outputs[0].buffer
        if x.size == 0:
            return
        v = x.astype(np.int64)
        m, _, total = exp_rows(self.table, v)
        lse = np.fromiter((qm.logf(s) for s in total.ravel()), F32, total.size)
        pre = ((self.in_scale * m.astype(F32)).astype(F32) + lse.reshape(total.shape))
        pre = (pre.astype(F32) / self.out_scale).astype(F32)
        log_prob = ((self.ratio * v.astype(F32)).astype(F32) - pre).astype(F32)
        q = np.clip(np.rint(log_prob).astype(np.float64) + self.zp, self.lo, self.hi)
        np.copyto(out, q, casting="unsafe")
