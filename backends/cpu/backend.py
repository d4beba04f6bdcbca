"""The cpu backend: NumPy kernels for every op the runtime knows, host tensors in one arena."""
from __future__ import annotations

from ...core.backend import Backend, ContextData, HostBackendContext, IConfig
from ...core.ir import Graph, Operation
from .ops import kernels


def check_support(registry, op: Operation, graph: Graph, backend_id: str) -> tuple[bool, str]:
    """Shared supports() logic for registry-based backends: a kernel exists and accepts the op."""
    cls = registry.lookup(op, graph)
    if cls is None:
        return False, f"{backend_id} has no kernel for {op.type}" + (
            f".{op.subtype}" if op.subtype else "")
    try:
        return cls.supports(op, graph)
    except (IndexError, KeyError, ValueError, TypeError) as e:   # a malformed op (operands)
        return False, (f"{backend_id} {op.type} cannot read the op's operands ({len(op.inputs)} "
                       f"inputs, {len(op.outputs)} outputs): {type(e).__name__}: {e}")


class CpuConfig(IConfig):
    id = "cpu"
    support_dynamic_tensor = True

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        return check_support(kernels, op, graph, self.id)


class CpuContext(HostBackendContext):
    pass


class CpuBackend(Backend):
    def __init__(self) -> None:
        self.config = CpuConfig()

    def new_context(self, data: ContextData) -> CpuContext:
        return CpuContext(self, data, kernels)
