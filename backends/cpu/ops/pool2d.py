"""AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D on float tensors, and the pooling windows (shifted
views of a padded input) that the quantized kernels share. Parameters, validation and geometry:
core/ops/pool2d.py. Quantized form: backends/cpu/ops/quant/qpool.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.pool2d import Pool2DBase, pool_geometry
from .common import register


def pool_windows(params, x_shape, y_shape, fill, dtype):
    """The windows of a 2-D pooling op: a padded NHWC buffer filled with `fill`, its interior
    (where the input is copied) and one strided view per filter tap, each of the output's
    shape. Returns (padded, interior, taps)."""
    g = pool_geometry(params, x_shape, y_shape)
    padded = np.full((g.n, g.h + g.pt + g.pb, g.w + g.pl + g.pr, g.c), fill, dtype)
    taps = [padded[:, i:i + (g.oh - 1) * g.sh + 1:g.sh, j:j + (g.ow - 1) * g.sw + 1:g.sw, :]
            for i in range(g.kh) for j in range(g.kw)]
    return padded, padded[:, g.pt:g.pt + g.h, g.pl:g.pl + g.w, :], taps


def window_counts(taps: list, interior: np.ndarray) -> np.ndarray:
    """Per output position, how many taps of its window fall on the input (not the padding):
    the taps summed over an input of ones (this overwrites the interior)."""
    interior[...] = 1
    return sum(t[:1, :, :, :1] for t in taps)


@register("Pool2D")
class Pool2DLayer(Pool2DBase):
    """A reduction over the window's taps: shifted views of a padded input, combined in place.
    Average pooling divides by the number of valid (unpadded) inputs, as TFLite does."""

    def prepare(self) -> None:
        x = self.buf(0)
        kind = self.kind = self.op.subtype
        self.combine = np.maximum if kind == "MAX_POOL_2D" else np.add
        self.padded, self.interior, self.taps = pool_windows(
            self.op.params, x.shape, self.out.shape, 0, x.dtype)
        if kind != "MAX_POOL_2D":
            count = window_counts(self.taps, self.interior)
            self.inv_count = (1.0 / np.maximum(count, 1)).astype(x.dtype)
        self.padded.fill(-np.inf if kind == "MAX_POOL_2D" else 0)

    def run(self) -> None:
        np.copyto(self.interior, self.inputs[0].buffer)
        out = self.outputs[0].buffer
        taps = self.taps
        if self.kind == "L2_POOL_2D":
            np.square(taps[0], out=out)
            for t in taps[1:]:
                out += np.square(t)
            out *= self.inv_count
            np.sqrt(out, out=out)
        else:
            np.copyto(out, taps[0])
            for t in taps[1:]:
                self.combine(out, t, out=out)
            if self.kind == "AVERAGE_POOL_2D":
                out *= self.inv_count
        if self.act is not None:
            self.act(out)
