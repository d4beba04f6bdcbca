"""Normalizations: L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION (TFLite's l2norm.cc,
local_response_norm.cc) and Circle's INSTANCE_NORM and RMS_NORM (Samsung ONE: onert cker
InstanceNorm.h / RmsNorm.h): the parameters and validation every backend shares.

- L2_NORMALIZATION: x / max(sqrt(sum(x^2)), 1e-6) along the last axis, then the fused
  activation. Quantized (uint8, int8): TFLite's Prepare requires output scale 1/128 and zero
  point 128 (uint8) / 0 (int8), and no fused activation; those are refused the same way.
- LOCAL_RESPONSE_NORMALIZATION: NHWC, x * (bias + alpha * sum of x^2 over channels
  c - radius .. c + radius) ^ -beta (defaults radius 5, bias 1, alpha 1, beta 0.5).
- INSTANCE_NORM: gamma * (x - mean) / sqrt(var + eps) + beta, mean / var per batch and channel
  over the spatial axes (input rank >= 3), gamma and beta of 1 or C elements, then the fused
  activation.
- RMS_NORM: gamma * x / sqrt(mean(x^2 over the last axis) + eps); gamma (input 1) is required,
  with 1 or C elements.

Kernels: backends/cpu/ops/norm.py (float) and backends/cpu/ops/quant/qnorm.py (quantized
L2_NORMALIZATION), acl_neon ops/norm.py, acl_cl ops/norm.py.
"""
from __future__ import annotations

import numpy as np

from .base import F32, OpKernel, activation
from .quant_base import I8, U8, QuantOpKernel


def channel_vector(kernel: OpKernel, i: int, channels: int, what: str) -> None:
    """Refuse optional input `i` (gamma, beta) unless it has 1 or `channels` elements."""
    t = kernel.inputs[i] if i < len(kernel.inputs) else None
    if t is None:
        return
    size = int(np.prod(t.shape))
    if size not in (1, channels):
        raise kernel.fail(f"{what} has {size} elements, expected 1 or {channels}")


class L2NormalizationBase(OpKernel):
    """Float L2_NORMALIZATION; `act`: the fused activation (None: none)."""

    dtypes = F32

    def validate(self) -> None:
        self.act = activation(self.op.params.get("fused_activation_function"))


class QL2NormalizationBase(QuantOpKernel):
    """Quantized L2_NORMALIZATION; `zp`: the input zero point."""

    dtypes = frozenset({I8, U8})

    def validate(self) -> None:
        x, y = self.inputs[0], self.outputs[0]
        if x.dtype != y.dtype:
            raise self.fail(f"quantized L2_NORMALIZATION needs equal input/output types, got "
                            f"{x.dtype} and {y.dtype}")
        want_zp = 128 if y.dtype == U8 else 0
        if self.scale(y) != np.float32(1 / 128) or self.zero_point(y) != want_zp:
            raise self.fail(f"quantized L2_NORMALIZATION needs output scale 1/128 and zero "
                            f"point {want_zp}, got {self.scale(y)} and {self.zero_point(y)}")
        act = self.op.params.get("fused_activation_function")
        if act not in (None, "NONE"):
            raise self.fail(f"quantized L2_NORMALIZATION has no fused activation ({act})")
        self.zp = self.zero_point(x)


class LocalResponseNormalizationBase(OpKernel):
    """LOCAL_RESPONSE_NORMALIZATION: a 4-D input; `radius` (int), `bias`, `alpha`, `beta`
    (float32)."""

    dtypes = F32

    def validate(self) -> None:
        if len(self.inputs[0].shape) != 4 and not self.inputs[0].is_dynamic:
            raise self.fail(f"LOCAL_RESPONSE_NORMALIZATION needs a 4-D input, not "
                            f"{self.inputs[0].shape}")
        p = self.op.params
        self.radius = int(p.get("radius", 5))
        self.bias = np.float32(p.get("bias", 1.0))
        self.alpha = np.float32(p.get("alpha", 1.0))
        self.beta = np.float32(p.get("beta", 0.5))


class InstanceNormBase(OpKernel):
    """INSTANCE_NORM: input rank >= 3 (N, ..., C), gamma (input 1) and beta (input 2) of 1 or C
    elements when present; `eps` and the fused activation `act`."""

    def validate(self) -> None:
        x = self.inputs[0]
        if len(x.shape) < 3:
            raise self.fail(f"input must be at least 3-D (N, ..., C), got {x.shape}")
        channel_vector(self, 1, x.shape[-1], "gamma")
        channel_vector(self, 2, x.shape[-1], "beta")
        self.eps = float(self.op.params.epsilon)
        self.act = activation(self.op.params.fused_activation_function)


class RmsNormBase(OpKernel):
    """RMS_NORM: input rank >= 1, gamma (input 1) of 1 or C elements; `eps`."""

    def validate(self) -> None:
        x = self.inputs[0]
        if len(x.shape) < 1:
            raise self.fail("input must be at least 1-D")
        if len(self.inputs) < 2 or self.inputs[1] is None:
            raise self.fail("gamma (input 1) is required")
        channel_vector(self, 1, x.shape[-1], "gamma")
        self.eps = float(self.op.params.epsilon)


__all__ = ["channel_vector", "L2NormalizationBase", "QL2NormalizationBase",
           "LocalResponseNormalizationBase", "InstanceNormBase", "RmsNormBase"]
