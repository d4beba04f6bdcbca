"""The exact float64 form of a quantized convolution's q31 rescale (core/ops/conv2d.py's
ConvRequant), for the cpu 8-bit CONV_2D / DEPTHWISE_CONV_2D kernels (qconv2d,
qdepthwise_conv2d).

ConvRequant computes q = clamp(floor((acc * M + K) / 2^S)) per output channel in int64, where acc
is the exact integer sum of (x - x_zp)(w - w_zp) (the float kernel's result, held exactly in a
float32/float64 array), M the (left-shifted) multiplier and K the bias times M, the rounding
nudges and the output zero point. The same value comes out of float64 arithmetic alone:

    y = acc * (M * 2^-S) + K * 2^-S

M * 2^-S and K * 2^-S are exact float64 numbers (power-of-two scaling) when M, |K| < 2^53; the
product acc * M * 2^-S is exact when |acc| * M < 2^53, and the sum is exact (the exact sum is a
multiple of 2^-S below 2^53 * 2^-S) when B * M + |K| < 2^53, B a bound on |acc| (max |x - x_zp|
times the largest sum of |w - w_zp| of one channel). Then y = (acc * M + K) / 2^S exactly and
floor(y) is ConvRequant's result; `Float64Rescale.plan` checks this bound per channel, in Python
integers, and refuses (None) otherwise. Four float64 passes (cast, multiply, add, clip) replace
ConvRequant's six int64 ones (int64 multiplies have no SIMD form on x86).

The clamp and the floor are one clip and one truncating cast: with an offset (128 for int8) added
to K, y is clipped to [lo + offset, hi + offset] (non-negative), where truncation equals floor,
cast to uint8 into the output's bytes, and for int8 the offset is taken back by flipping the top
bit (v + 128 as uint8, XOR 0x80, is v as int8). Channels rescaled with the reference rounding
(ConvRequant.split < channels) and the int16 path have no such form: they keep ConvRequant.
"""
from __future__ import annotations

import math

import numpy as np

from .....core.quant.qgemm import F64_EXACT
from .base import I8, U8

ROW = 4096          # broadcast the per-channel constants over rows of about this many values


def row_length(size: int, channels: int) -> int:
    """A multiple of `channels` that divides `size` and is near ROW (long inner loops: NumPy
    broadcasting a short per-channel vector runs one short loop per pixel)."""
    pixels = size // channels if channels else 0
    best = 1
    for g in range(1, max(1, ROW // max(channels, 1)) + 1):
        if pixels % g == 0:
            best = g
    return channels * best


class Float64Rescale:
    """Per-channel float64 multipliers `mf` and offsets `kf` (y = acc * mf + kf) and the clip
    bounds; `plan(...)` returns None when the float64 form is not exact (see module doc)."""

    def __init__(self, mf: np.ndarray, kf: np.ndarray, lo: float, hi: float, flip: bool) -> None:
        self.mf, self.kf, self.lo, self.hi, self.flip = mf, kf, lo, hi, flip

    @classmethod
    def plan(cls, rq, out_dtype, acc_bound: int, bias: np.ndarray) -> "Float64Rescale | None":
        """`rq` a ConvRequant in mode q31, `acc_bound` a bound on |acc - bias|, `bias`
        the int64 per-channel bias (its share of |acc| is in K)."""
        n = int(np.size(bias))
        if out_dtype not in (I8, U8) or rq.split < n or n == 0:
            return None
        offset = 128 if out_dtype == I8 else 0
        m = np.broadcast_to(np.asarray(rq.m, np.int64), (n,))
        s = np.broadcast_to(np.asarray(rq.s, np.int64), (n,))
        k = np.broadcast_to(np.asarray(rq.k, np.int64), (n,))
        mf, kf = np.empty(n), np.empty(n)
        for c in range(n):
            mc, sc = int(m[c]), int(s[c])
            kc = int(k[c]) + ((offset if rq.fold else rq.zp + offset) << sc)
            if acc_bound * mc + abs(kc) >= F64_EXACT:
                return None
            mf[c] = math.ldexp(float(mc), -sc)
            kf[c] = math.ldexp(float(kc), -sc)
        return cls(mf, kf, float(rq.lo + offset), float(rq.hi + offset), offset != 0)

    def hook(self, targets: list):
        """An `act(chunk)` for the float kernel: rescale the exact accumulators of a float
        chunk (bias not added) into its integer output chunk. `targets`: (float chunk, integer
        chunk) pairs, the integer chunks C-contiguous or not."""
        n = self.mf.size
        size = max((f.size for f, _ in targets), default=0)
        scratch = np.empty(size)
        tiles: dict[int, tuple] = {}
        plan = {}
        for f, q in targets:
            t = scratch[:f.size].reshape(f.shape)
            L = row_length(f.size, n) if q.flags.c_contiguous else n
            if L not in tiles:
                reps = L // n
                tiles[L] = (np.tile(self.mf, reps), np.tile(self.kf, reps))
            flat = t.reshape(-1, L)
            qv = q.view(np.uint8)
            plan[id(f)] = (t, flat, qv.reshape(-1, L) if L != n else qv, tiles[L],
                           flat if L != n else t)
        lo, hi, flip = self.lo, self.hi, self.flip

        def act(f: np.ndarray) -> None:
            t, flat, q, (mf, kf), tq = plan[id(f)]
            np.copyto(t, f)           # a separate cast: mixed-type broadcasting is slower
            np.multiply(flat, mf, out=flat)
            np.add(flat, kf, out=flat)
            np.clip(flat, lo, hi, out=flat)
            np.copyto(q, tq, casting="unsafe")
            if flip:
                np.bitwise_xor(q, 0x80, out=q)
        return act
