"""The builtin backend: control flow (If, While, CallOnce), resource variables, Permute, and the
tensors of the user's I/O."""
from __future__ import annotations

from ..core.backend import (Backend, ContextData, HostBackendContext, HostTensor, IConfig,
                            KernelRegistry, TensorRegistry)
from ..core.ir import Graph, Operation
from .control_flow import CallOnceLayer, IfLayer, SubgraphCall, WhileLayer
from .io_tensor import IOTensor
from .permute import PermuteLayer
from .variables import AssignVariableLayer, ReadVariableLayer, VarHandleLayer

kernels = KernelRegistry("builtin")
kernels.register("Permute")(PermuteLayer)
kernels.register("If")(IfLayer)
kernels.register("While")(WhileLayer)
kernels.register("CallOnce")(CallOnceLayer)
kernels.register("VarHandle")(VarHandleLayer)
kernels.register("ReadVariable")(ReadVariableLayer)
kernels.register("AssignVariable")(AssignVariableLayer)


class BuiltinConfig(IConfig):
    id = "builtin"
    host_memory = True
    support_dynamic_tensor = True
    support_permutation = True

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        if kernels.lookup(op) is not None:
            return True, ""
        return False, f"builtin runs only {', '.join(kernels.keys())}"


class BuiltinContext(HostBackendContext):
    """Owns the subgraph's I/O operands as IOTensors; its Permutes see every backend's tensors."""

    def __init__(self, backend: "BuiltinBackend", data: ContextData) -> None:
        super().__init__(backend, data, kernels)
        g = data.graph
        self.io = set(g.inputs) | set(g.outputs)
        self.unplanned = set(self.io)
        self.other_registries: list[TensorRegistry] = []

    def make_tensor(self, operand) -> HostTensor:
        return IOTensor(operand) if operand.index in self.io else HostTensor(operand)

    def gen_tensors(self) -> TensorRegistry:
        registry = super().gen_tensors()        # sizes checked against max_tensor_bytes
        for index in self.io:
            t = registry.get_native_itensor(index)
            if isinstance(t, IOTensor):
                t.placeholder()
        return registry

    def tensor(self, index: int):
        if index >= 0 and index not in self.tensor_registry:
            for reg in self.other_registries:
                t = reg.get_itensor(index)
                if t is not None:
                    return t
        return super().tensor(index)


class BuiltinBackend(Backend):
    def __init__(self) -> None:
        self.config = BuiltinConfig()

    def new_context(self, data: ContextData) -> BuiltinContext:
        return BuiltinContext(self, data)

    def subgraph_calls(self, op: Operation, graph: Graph
                       ) -> list[tuple[int, list[tuple[int, ...]]]]:
        """The (child subgraph, input shapes) pairs the kernel of `op` (in the lowered,
        shape-inferred `graph`) will ask the compiler for when configured, in its order; [] for
        ops that call no subgraph. The compiler compiles these before the op's subgraph."""
        cls = kernels.lookup(op)
        if cls is None or not issubclass(cls, SubgraphCall):
            return []

        def operand(i: int):
            return graph.operands[i] if i >= 0 else None

        return cls.subgraph_calls(op, [operand(i) for i in op.inputs],
                                  [operand(o) for o in op.outputs])
