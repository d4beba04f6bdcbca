"""Normalizations on float tensors: L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, and Circle's
INSTANCE_NORM and RMS_NORM (statistics accumulated in float64 like onert's cker kernels).
Parameters and validation: core/ops/norm.py. Quantized L2_NORMALIZATION:
backends/cpu/ops/quant/qnorm.py."""
from __future__ import annotations

import numpy as np

from ....core.ops.norm import (InstanceNormBase, L2NormalizationBase,
                               LocalResponseNormalizationBase, RmsNormBase)
from .common import register


@register("L2Normalization")
class L2NormalizationLayer(L2NormalizationBase):
    """x / max(sqrt(sum(x^2)), 1e-6) along the last axis."""

    def run(self) -> None:
        x, out = self.buf(0), self.out
        norm = np.sqrt(np.sum(np.square(x), axis=-1, keepdims=True, dtype=np.float32))
        np.divide(x, np.maximum(norm, np.float32(1e-6)), out=out)
        if self.act is not None:
            self.act(out)


@register("LocalResponseNormalization")
class LocalResponseNormalizationLayer(LocalResponseNormalizationBase):
    """NHWC: x * (bias + alpha * sum of x^2 over channels c-radius..c+radius) ^ -beta."""

    def run(self) -> None:
        x = self.buf(0)
        c = x.shape[-1]
        r = min(max(self.radius, 0), c)
        sq = np.pad(np.square(x), [(0, 0)] * (x.ndim - 1) + [(r, r)])
        window = np.zeros_like(x)
        for k in range(2 * r + 1):   # channels c - r .. c + r, zero outside
            window += sq[..., k:k + c]
        np.multiply(x, np.power(self.bias + self.alpha * window, -self.beta), out=self.out)


@register("InstanceNorm")
class InstanceNormLayer(InstanceNormBase):
    """y = gamma * (x - mean) / sqrt(var + eps) + beta, mean/var per batch and channel over the
    spatial axes (NHWC: axes 1..rank-2), then the fused activation."""

    def prepare(self) -> None:
        x = self.buf(0)
        self.axes = tuple(range(1, x.ndim - 1))

    def run(self) -> None:
        x = self.buf(0).astype(np.float64)
        mean = x.mean(axis=self.axes, keepdims=True)
        var = np.square(x - mean).mean(axis=self.axes, keepdims=True)
        gamma, beta = self.buf(1), self.buf(2)
        a = 1.0 / np.sqrt(var + self.eps)
        if gamma is not None:
            a = a * gamma.reshape(-1).astype(np.float64)
        y = (x - mean) * a
        if beta is not None:
            y += beta.reshape(-1)
        np.copyto(self.out, y, casting="same_kind")
        if self.act is not None:
            self.act(self.out)


@register("RmsNorm")
class RmsNormLayer(RmsNormBase):
    """y = gamma * x / sqrt(mean(x^2 over the last axis) + eps); gamma has 1 or C elements."""

    def run(self) -> None:
        x = self.buf(0).astype(np.float64)
        ms = np.square(x).mean(axis=-1, keepdims=True)
        y = x / np.sqrt(ms + self.eps) * self.buf(1).reshape(-1).astype(np.float64)
        np.copyto(self.out, y, casting="same_kind")
