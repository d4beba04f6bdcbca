"""Entry points of the acl_neon backend (native SIMD kernels, NHWC)."""
from __future__ import annotations

from .backend import AclNeonBackend


def onert_backend_create() -> AclNeonBackend:
    return AclNeonBackend()


def onert_backend_destroy(backend: AclNeonBackend) -> None:
    pass
