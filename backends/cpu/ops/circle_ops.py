"""Circle-only builtins: INSTANCE_NORM, RMS_NORM, ROPE (Circle's GRU: gru.py).

Semantics follow Samsung ONE (onert cker InstanceNorm.h / RmsNorm.h / RoPE.h); statistics are
accumulated in float64 like the cker kernels.
"""
from __future__ import annotations

import numpy as np

from .common import CpuKernel, activation, register


def _channel_vector(kernel: CpuKernel, i: int, channels: int, what: str) -> None:
    t = kernel.inputs[i] if i < len(kernel.inputs) else None
    if t is None:
        return
    size = int(np.prod(t.shape))
    if size not in (1, channels):
        raise kernel.fail(f"{what} has {size} elements, expected 1 or {channels}")


@register("InstanceNorm")
class InstanceNormLayer(CpuKernel):
    """y = gamma * (x - mean) / sqrt(var + eps) + beta, mean/var per batch and channel over the
    spatial axes (NHWC: axes 1..rank-2), then the fused activation."""

    def validate(self) -> None:
        x = self.inputs[0]
        if len(x.shape) < 3:
            raise self.fail(f"input must be at least 3-D (N, ..., C), got {x.shape}")
        _channel_vector(self, 1, x.shape[-1], "gamma")
        _channel_vector(self, 2, x.shape[-1], "beta")
        self.eps = float(self.op.params.epsilon)
        self.act = activation(self.op.params.fused_activation_function)

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
class RmsNormLayer(CpuKernel):
    """y = gamma * x / sqrt(mean(x^2 over the last axis) + eps); gamma has 1 or C elements."""

    def validate(self) -> None:
        x = self.inputs[0]
        if len(x.shape) < 1:
            raise self.fail("input must be at least 1-D")
        if len(self.inputs) < 2 or self.inputs[1] is None:
            raise self.fail("gamma (input 1) is required")
        _channel_vector(self, 1, x.shape[-1], "gamma")
        self.eps = float(self.op.params.epsilon)

    def run(self) -> None:
        x = self.buf(0).astype(np.float64)
        ms = np.square(x).mean(axis=-1, keepdims=True)
        y = x / np.sqrt(ms + self.eps) * self.buf(1).reshape(-1).astype(np.float64)
        np.copyto(self.out, y, casting="same_kind")


# RoPEMode values (by name from the loader; by number if an options table comes raw).
_ROPE_MODES = {0: "GPT_NEOX", 1: "GPT_J", "GPT_NEOX": "GPT_NEOX", "GPT_J": "GPT_J"}


@register("RoPE")
class RoPELayer(CpuKernel):
    """GPT-NeoX rotary embedding over the last axis D (even), halves h = D/2:
    y[:h] = x[:h] * cos[:h] - x[h:] * sin[:h];  y[h:] = x[:h] * sin[h:] + x[h:] * cos[h:].
    The sin/cos tables broadcast against the input (onert's cker takes (1, 1, 1, D) tables;
    tables with a position axis, e.g. (1, 1, S, D), apply row by row)."""

    def validate(self) -> None:
        x, s, c = self.inputs[0], self.inputs[1], self.inputs[2]
        if len(x.shape) != 4:
            raise self.fail(f"input must be 4-D, got {x.shape}")
        d = x.shape[-1]
        if d % 2:
            raise self.fail(f"the last dimension ({d}) must be even")
        for t, what in ((s, "sin_table"), (c, "cos_table")):
            if t.shape[-1] != d:
                raise self.fail(f"{what} last dimension {t.shape[-1]} != input's {d}")
            try:
                np.broadcast_shapes(tuple(t.shape), tuple(x.shape))
            except ValueError:
                raise self.fail(f"{what} {t.shape} does not broadcast to {x.shape}") from None
        mode = _ROPE_MODES.get(self.op.params.get("mode", 0), self.op.params.get("mode"))
        if mode != "GPT_NEOX":
            raise self.fail(f"RoPE mode {mode} is not supported (onert implements GPT_NEOX)")

    def run(self) -> None:
        x, sin, cos, y = self.buf(0), self.buf(1), self.buf(2), self.out
        h = x.shape[-1] // 2
        x0, x1 = x[..., :h], x[..., h:]
        y[..., :h] = x0 * cos[..., :h] - x1 * sin[..., :h]
        y[..., h:] = x0 * sin[..., h:] + x1 * cos[..., h:]
