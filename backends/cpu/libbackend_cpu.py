"""Entry points of the cpu backend (NumPy kernels, NHWC)."""
from __future__ import annotations

from .backend import CpuBackend


def onert_backend_create() -> CpuBackend:
    return CpuBackend()


def onert_backend_destroy(backend: CpuBackend) -> None:
    pass
