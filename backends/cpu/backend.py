"""The cpu backend: NumPy kernels for every op the runtime knows, host tensors in one arena.

Its op modules (ops/, about a hundred) are imported on demand: when a session first asks cpu
whether it runs an op, or first gives it ops to run. A session whose ops all run on acl_neon
(the default list acl_neon;cpu on most models) never imports them."""
from __future__ import annotations

from ...core.backend import Backend, ContextData, HostBackendContext, IConfig, KernelRegistry
from ...core.ir import Graph, Operation


def kernels() -> KernelRegistry:
    """cpu's kernel registry (its op modules imported on first use)."""
    from .ops import kernels as registry
    return registry


class CpuConfig(IConfig):
    id = "cpu"
    host_memory = True
    support_dynamic_tensor = True

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        return kernels().supports(op, graph)


class CpuContext(HostBackendContext):
    pass


class CpuBackend(Backend):
    def __init__(self) -> None:
        self.config = CpuConfig()

    def new_context(self, data: ContextData) -> CpuContext:
        return CpuContext(self, data, kernels())
