"""A second host backend for mapping tests: the cpu backend's kernels under the id "cpu2".

It lets tests put some ops on one backend and the rest on another, with real Permutes
between them, on any machine.
"""
from __future__ import annotations

from onert_py.backends.cpu.backend import CpuContext
from onert_py.backends.cpu.ops import kernels
from onert_py.core.backend import Backend, ContextData, IConfig


class Cpu2Config(IConfig):
    id = "cpu2"

    def supports(self, op, graph):
        return kernels.supports(op, graph)


class Cpu2Backend(Backend):
    def __init__(self) -> None:
        self.config = Cpu2Config()

    def new_context(self, data: ContextData) -> CpuContext:
        return CpuContext(self, data, kernels)


def onert_backend_create() -> Cpu2Backend:
    return Cpu2Backend()


def onert_backend_destroy(backend: Cpu2Backend) -> None:
    pass
