"""Quantized AVERAGE_POOL_2D and MAX_POOL_2D (int8, uint8, int16), as TFLite's pooling.cc runs
them (optimized_ops / optimized_integer_ops for 8-bit, reference_integer_ops for int16).
Validation (the output carries the input's scale and zero point; L2_POOL_2D has no quantized
kernel): core/ops/pool2d.py. Float form: backends/cpu/ops/pool2d.py.

Both work in the input's integer domain:
- AVERAGE: int32 sum of the window's valid (unpadded) taps, divided by their count with
  rounding half away from zero: (sum + count/2) / count for sum > 0, (sum - count/2) / count
  otherwise, C division truncating; then clamped to the fused activation's range. The
  optimized 8-bit loops and the reference int16 loop round the same way (probed on ties).
- MAX: the maximum of the valid taps, clamped to the activation range.
"""
from __future__ import annotations

import numpy as np

from .....core.ops.pool2d import QPool2DBase
from .....core.quant import qmath
from ..pool2d import pool_windows, window_counts
from .base import quantized, register

I64 = np.int64


class QPool2DLayer(QPool2DBase):
    """The window's valid taps (shifted views of a padded int64 copy of the input) combined
    in place by `combine`, then `finish`ed and clamped."""

    combine = staticmethod(np.maximum)     # in-place reduction of the taps

    def prepare(self) -> None:
        x, y = self.buf(0), self.out
        # TFLite clips each window to the input; windows entirely outside would be empty, but
        # SAME/VALID output sizes never produce them.
        fill = np.iinfo(x.dtype).min if self.combine is np.maximum else 0
        self.padded, self.interior, self.taps = pool_windows(self.op.params, x.shape, y.shape,
                                                             fill, I64)
        self.acc = np.empty(y.shape, I64)

    def finish(self, acc: np.ndarray) -> np.ndarray:
        return acc

    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        acc = self.acc
        np.copyto(acc, self.taps[0])
        for t in self.taps[1:]:
            self.combine(acc, t, out=acc)
        qmath.clamp_cast(self.finish(acc), self.lo, self.hi, self.out.dtype,
                         out=self.outputs[0].buffer)


@register("Pool2D.AVERAGE_POOL_2D", when=quantized)
class QAveragePool2DLayer(QPool2DLayer):
    combine = staticmethod(np.add)

    def prepare(self) -> None:
        super().prepare()
        self.count = np.maximum(window_counts(self.taps, self.interior), 1)

    def finish(self, acc: np.ndarray) -> np.ndarray:
        c = self.count
        mag = (np.abs(acc) + c // 2) // c        # C truncation of (|sum| + count/2) / count
        return np.where(acc > 0, mag, -mag)


@register("Pool2D.MAX_POOL_2D", when=quantized)
class QMaxPool2DLayer(QPool2DLayer):
    combine = staticmethod(np.maximum)
