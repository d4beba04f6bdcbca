"""Entry points of the builtin backend, the same pair every backend module exposes."""
from __future__ import annotations

from .backend import BuiltinBackend


def onert_backend_create() -> BuiltinBackend:
    return BuiltinBackend()


def onert_backend_destroy(backend: BuiltinBackend) -> None:
    pass
