"""The cpu backend's registry (`kernels`: its registrations are the supported-op list) and the
NumPy helpers its kernels share (pooling windows). The op-level base class, activations and
padding are core/ops/base.py's (re-exported here)."""
from __future__ import annotations

import numpy as np

from ....core.backend import KernelRegistry
from ....core.ops.base import (ANY, CLAMPS, F32, NUMERIC, OpKernel, activation,
                               clamp_activation, conv_padding, dtypes, same_padding)

kernels = KernelRegistry("cpu")
register = kernels.register


class CpuKernel(OpKernel):
    """A cpu kernel (core/ops/base.py's OpKernel under the cpu backend's name)."""

    backend_id = "cpu"


def pool_windows(params, x_shape, y_shape, fill, dtype):
    """The windows of a 2-D pooling op: a padded NHWC buffer filled with `fill`, its interior
    (where the input is copied) and one strided view per filter tap, each of the output's
    shape. Returns (padded, interior, taps)."""
    n, h, w, c = x_shape
    _, oh, ow, _ = y_shape
    kh, kw, sh, sw = params.filter_height, params.filter_width, params.stride_h, params.stride_w
    pt, pb, pl, pr = conv_padding(params.padding, h, w, kh, kw, sh, sw, 1, 1, oh, ow)
    padded = np.full((n, h + pt + pb, w + pl + pr, c), fill, dtype)
    taps = [padded[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :]
            for i in range(kh) for j in range(kw)]
    return padded, padded[:, pt:pt + h, pl:pl + w, :], taps


def window_counts(taps: list, interior: np.ndarray) -> np.ndarray:
    """Per output position, how many taps of its window fall on the input (not the padding):
    the taps summed over an input of ones (this overwrites the interior)."""
    interior[...] = 1
    return sum(t[:1, :, :, :1] for t in taps)


__all__ = ["kernels", "register", "CpuKernel", "OpKernel", "ANY", "CLAMPS", "F32", "NUMERIC",
           "activation", "clamp_activation", "conv_padding", "dtypes", "same_padding",
           "pool_windows", "window_counts"]
