"""The cpu backend: NumPy kernels for every op the runtime knows, host tensors in one arena."""
from __future__ import annotations

from ...core.backend import Backend, ContextData, HostBackendContext, IConfig
from ...core.ir import Graph, Operation
from .ops import kernels


class CpuConfig(IConfig):
    id = "cpu"
    host_memory = True
    support_dynamic_tensor = True

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        return kernels.supports(op, graph)


class CpuContext(HostBackendContext):
    pass


class CpuBackend(Backend):
    def __init__(self) -> None:
        self.config = CpuConfig()

    def new_context(self, data: ContextData) -> CpuContext:
        return CpuContext(self, data, kernels)
