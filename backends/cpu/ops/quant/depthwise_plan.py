"""The accumulation plan of the quantized DEPTHWISE_CONV_2D (qdepthwise_conv2d): exact integer
sums of (x - x_zp) * (w - w_zp) over the filter taps, in float32 or float64 arrays.

The input minus its zero point is written, once per run, into zero-bordered "phase planes": for
strides (sh, sw) the plane of phase (py, px) holds the padded input's rows py, py + sh, ... and
columns px, px + sw, ..., so the tap (i, j) of every output pixel reads one plane at a constant
offset (qy, qx) = (i*dh // sh, j*dw // sw) with stride 1. The border is 0 (= x_zp - x_zp: TFLite's
padded taps contribute nothing; or x_zp when the planes hold x itself, the kernel's bias then
carrying -x_zp * sum(w)), so every tap covers whole output rows and reads a contiguous run
of (output width x channels) values per row; the per-channel weights are tiled to that run
length, so NumPy's inner loops are long even for strided layers or few channels. A depth
multiplier m > 1 repeats each input channel m times while filling the planes.

The output is accumulated in bands of rows that stay in cache (first tap a multiply into the
band, the others a multiply into a scratch band and an add), and each band is handed to the
rescale (`act`) right away. Sums are exact by the bound qconv2d.QConvMixin.validate checks for
the float type (every partial sum is below it).
"""
from __future__ import annotations

import numpy as np

from .....core.ops.window import ConvGeometry

BAND_BYTES = 192 * 1024


def phase_rows(size: int, out: int, stride: int, pad: int, phase: int, extent: int):
    """Plane rows [r0, r1) of one phase holding real input, and the input row of r0: plane row
    r is padded-input row r*stride + phase, i.e. input row r*stride + phase - pad."""
    r0 = max(0, -((phase - pad) // stride))
    r1 = min(extent, (size - 1 + pad - phase) // stride + 1)
    return r0, max(r0, r1), r0 * stride + phase - pad


class DepthwisePlan:
    """Phase planes, tiled weights and output bands of one depthwise convolution: `g` its
    geometry (core/ops/window.py), `w2d` (kh*kw, cout) float filter (minus its zero point),
    `dtype` the exact float type."""

    def __init__(self, g: ConvGeometry, w2d: np.ndarray, dtype, check, border=0) -> None:
        n, h, wd, cin, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl = g
        cout = w2d.shape[1]
        self.n, self.cin, self.mult = n, cin, cout // cin
        taps = [(i, j) for i in range(kh) for j in range(kw)]
        qy_max = max(i * dh // sh for i, _ in taps)
        qx_max = max(j * dw // sw for _, j in taps)
        rows, cols = oh + qy_max, ow + qx_max
        self.planes, self.fills = {}, []
        for i, j in taps:
            key = (i * dh % sh, j * dw % sw)
            if key in self.planes:
                continue
            check("phase plane", (n, rows, cols, cout), dtype)
            plane = np.full((n, rows, cols, cout), border, dtype)
            self.planes[key] = plane
            r0, r1, y0 = phase_rows(h, oh, sh, pt, key[0], rows)
            c0, c1, x0 = phase_rows(wd, ow, sw, pl, key[1], cols)
            if r1 > r0 and c1 > c0:
                src = (slice(None), slice(y0, y0 + (r1 - r0 - 1) * sh + 1, sh),
                       slice(x0, x0 + (c1 - c0 - 1) * sw + 1, sw))
                dst = plane[:, r0:r1, c0:c1]
                if self.mult > 1:
                    dst = dst.reshape(n, r1 - r0, c1 - c0, cin, self.mult)
                self.fills.append((src, dst))
        run = ow * cout
        check("output accumulator", (n, oh, ow, cout), dtype)
        self.acc = np.empty((n, oh, ow, cout), dtype)
        acc3 = self.acc.reshape(n, oh, run)
        band = min(max(oh, 1), max(1, BAND_BYTES // max(n * run * dtype.itemsize, 1)))
        self.tmp = np.empty((n, band, run), dtype)
        wtile = [np.tile(w2d[t], ow).astype(dtype) for t in range(len(taps))]
        self.bands = []
        for b0 in range(0, oh, band):
            b1 = min(oh, b0 + band)
            steps = []
            for t, (i, j) in enumerate(taps):
                qy, qx = i * dh // sh, j * dw // sw
                plane = self.planes[(i * dh % sh, j * dw % sw)]
                flat = plane.reshape(n, rows, cols * cout)
                steps.append((flat[:, b0 + qy:b1 + qy, qx * cout:qx * cout + run], wtile[t]))
            self.bands.append((self.acc[:, b0:b1], acc3[:, b0:b1], steps,
                               self.tmp[:, :b1 - b0], b0))

    def targets(self, y: np.ndarray) -> list:
        """(float band, integer band) pairs for the rescale hook."""
        return [(f, y[:, b0:b0 + f.shape[1]]) for f, _, _, _, b0 in self.bands]

    def run(self, x: np.ndarray, zp, act) -> None:
        """Fill the planes with x - zp (x itself when zp is None: a plain cast, the planes'
        border then holds x_zp), accumulate every band and rescale it with `act`."""
        for src, dst in self.fills:
            view = x[src]
            if self.mult > 1:
                view = view[..., None]
            if zp is None:
                np.copyto(dst, view, casting="unsafe")
            else:
                np.subtract(view, zp, out=dst, dtype=dst.dtype, casting="unsafe")
        mul, add = np.multiply, np.add
        for f, f3, steps, tmp, _ in self.bands:
            view, wt = steps[0]
            mul(view, wt, out=f3)
            for view, wt in steps[1:]:
                mul(view, wt, out=tmp)
                add(f3, tmp, out=f3)
            act(f)
