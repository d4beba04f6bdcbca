"""PReLU, x >= 0 ? x : x * alpha with alpha broadcast against x: the float32 form every backend
shares. Kernels: backends/cpu/ops/prelu.py, backends/acl_neon/ops/eltwise.py,
backends/acl_cl/ops/elementwise.py; the quantized form: backends/cpu/ops/quant/qprelu.py."""
from __future__ import annotations

from .base import OpKernel


class PReLUBase(OpKernel):
    """PRELU of a float32 input and a float32 alpha."""


__all__ = ["PReLUBase"]
