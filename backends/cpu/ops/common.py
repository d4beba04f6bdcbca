"""The cpu backend's registry (`kernels`: its registrations are the supported-op list). The
op-level base class, activations and padding are core/ops/base.py's (re-exported here)."""
from __future__ import annotations

from ....core.backend import KernelRegistry
from ....core.ops.base import (ANY, CLAMPS, F32, NUMERIC, OpKernel, activation,
                               clamp_activation, conv_padding, dtypes, same_padding)

kernels = KernelRegistry("cpu")
register = kernels.register


__all__ = ["kernels", "register", "OpKernel", "ANY", "CLAMPS", "F32", "NUMERIC",
           "activation", "clamp_activation", "conv_padding", "dtypes", "same_padding"]
