"""A test backend whose loading closes another Session on the same thread, as a garbage
collection during the import of a backend's dependencies can (Session.__del__ releases its
backends while the BackendManager is loading this one). gcclose_state.SESSION["s"] holds the
session to drop; it must be the last reference."""
from __future__ import annotations

import os
import sys

from onert_py.core.backend import Backend, IConfig

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from gcclose_state import SESSION  # noqa: E402


class GcCloseConfig(IConfig):
    def initialize(self) -> bool:
        SESSION["s"] = None            # the last reference: Session.__del__ -> close -> release
        self.unavailable_reason = "gcclose runs no ops (a loading-time test backend)"
        return False

    def supports(self, op, graph):
        return False, "gcclose runs no ops"


class GcCloseBackend(Backend):
    def __init__(self) -> None:
        self.config = GcCloseConfig()

    def new_context(self, data):
        raise NotImplementedError


def onert_backend_create() -> Backend:
    return GcCloseBackend()


def onert_backend_destroy(backend: Backend) -> None:
    pass
