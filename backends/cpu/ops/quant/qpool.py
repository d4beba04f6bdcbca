"""Quantized AVERAGE_POOL_2D and MAX_POOL_2D (int8, uint8, int16), as TFLite's pooling.cc runs
them (optimized_ops / optimized_integer_ops for 8-bit, reference_integer_ops for int16).

Both work in the input's integer domain: pooling.cc expects the output to carry the input's
scale and zero point (a DCHECK in Prepare), so a mismatch is refused here at compile time.
- AVERAGE: int32 sum of the window's valid (unpadded) taps, divided by their count with
  rounding half away from zero: (sum + count/2) / count for sum > 0, (sum - count/2) / count
  otherwise, C division truncating; then clamped to the fused activation's range. The
  optimized 8-bit loops and the reference int16 loop round the same way (probed on ties).
- MAX: the maximum of the valid taps, clamped to the activation range.
L2_POOL_2D has no quantized kernel in TFLite (Prepare refuses it); it stays refused here.
"""
from __future__ import annotations

import numpy as np

from ..common import conv_padding
from . import qmath
from .base import QuantKernel, qregister

I64 = np.int64


class QPoolBase(QuantKernel):
    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if len(x.shape) != 4:
            raise self.fail(f"pooling needs NHWC input, got {x.shape}")
        if x.dtype != y.dtype:
            raise self.fail(f"quantized pooling needs equal input/output types, got {x.dtype} "
                            f"and {y.dtype}")
        self.check_same_quant(x, y)
        self.lo, self.hi = self.qrange(y, self.op.params.get("fused_activation_function"))

    def prepare(self) -> None:
        p = self.op.params
        x, y = self.buf(0), self.out
        n, h, w, c = x.shape
        _, oh, ow, _ = y.shape
        kh, kw, sh, sw = p.filter_height, p.filter_width, p.stride_h, p.stride_w
        pt, pb, pl, pr = conv_padding(p.padding, h, w, kh, kw, sh, sw, 1, 1, oh, ow)
        # TFLite clips each window to the input; windows entirely outside would be empty, but
        # SAME/VALID output sizes never produce them.
        fill = np.iinfo(x.dtype).min if self.op.subtype == "MAX_POOL_2D" else 0
        self.padded = np.full((n, h + pt + pb, w + pl + pr, c), fill, I64)
        self.interior = self.padded[:, pt:pt + h, pl:pl + w, :]
        self.taps = [self.padded[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :]
                     for i in range(kh) for j in range(kw)]
        valid = np.zeros((h + pt + pb, w + pl + pr), I64)
        valid[pt:pt + h, pl:pl + w] = 1
        count = sum(valid[i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
                    for i in range(kh) for j in range(kw))
        self.count = np.maximum(count, 1)[None, :, :, None]
        self.acc = np.empty(y.shape, I64)


@qregister("Pool2D.AVERAGE_POOL_2D")
class QAveragePool2D(QPoolBase):
    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        acc = self.acc
        np.copyto(acc, self.taps[0])
        for t in self.taps[1:]:
            acc += t
        c = self.count
        half = c // 2
        mag = (np.abs(acc) + half) // c          # C truncation of (|sum| + count/2) / count
        res = np.where(acc > 0, mag, -mag)
        qmath.clamp_cast(res, self.lo, self.hi, self.out.dtype, out=self.outputs[0].buffer)


@qregister("Pool2D.MAX_POOL_2D")
class QMaxPool2D(QPoolBase):
    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        acc = self.acc
        np.copyto(acc, self.taps[0])
        for t in self.taps[1:]:
            np.maximum(acc, t, out=acc)
        qmath.clamp_cast(acc, self.lo, self.hi, self.out.dtype, out=self.outputs[0].buffer)
