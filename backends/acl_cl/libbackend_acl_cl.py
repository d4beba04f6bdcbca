"""Entry points of the acl_cl backend (OpenCL through PyOpenCL)."""
from __future__ import annotations

from .backend import ClBackend


def onert_backend_create() -> ClBackend:
    return ClBackend()


def onert_backend_destroy(backend: ClBackend) -> None:
    """Release the process-wide OpenCL objects (contexts, queues, programs)."""
    backend.destroy()
