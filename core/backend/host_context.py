"""A BackendContext for backends whose tensors live in host memory (cpu, builtin, plug-ins).

gen_tensors() makes one HostTensor per owned operand: constants view the mapped model file
(constants folded by the compiler hold their own array), variables get private buffers, the
rest share one arena planned from their lifetimes. gen_kernels() asks the backend's
KernelRegistry for each op's kernel; a kernel that refuses in configure raises KernelRefusal,
on which the compiler moves the op to the next backend in the list.
"""
from __future__ import annotations

import numpy as np

from ...errors import CompileError
from .backend import BackendContext
from .kernel import Kernel, KernelRefusal, KernelRegistry
from .memory_planner import Request, arena, dag_conflicts, get_planner
from .op_dag import OpDag
from .registry import TensorRegistry
from .state import fill_initial
from .tensor import HostTensor


class HostBackendContext(BackendContext):
    """Host-memory tensors in one planned arena; kernels from a KernelRegistry."""

    kernels: KernelRegistry

    def __init__(self, backend, data, kernels: KernelRegistry) -> None:
        super().__init__(backend, data)
        self.kernels = kernels
        self.arena: np.ndarray | None = None
        self.unplanned: set[int] = set()     # operands whose buffers are bound elsewhere (IO)

    def lifetimes(self) -> dict[int, tuple[int, int]]:
        """operand -> (first, last) position in the order the executor runs the subgraph's ops
        (the Dataflow executor's own order; for Parallel, see `parallel_conflicts`)."""
        g, order = self.data.graph, self.data.exec_order
        if self.data.options.get("executor") == "Dataflow":
            order = [order[p] for p in OpDag.of_graph(g, order).ready_order()]
        end = len(order)
        span: dict[int, list[int]] = {}
        for pos, oi in enumerate(order):
            op = g.operations[oi]
            for o in op.outputs:
                if o >= 0:
                    s = span.setdefault(o, [pos, pos])
                    s[0] = min(s[0], pos)
            for i in op.inputs:
                if i >= 0:
                    s = span.setdefault(i, [0, pos])
                    s[1] = max(s[1], pos)
        for o in g.outputs:
            span.setdefault(o, [0, end])[1] = end
        return {k: (v[0], v[1]) for k, v in span.items()}

    def parallel_conflicts(self):
        """Sharing rule for the Parallel executor, where no order of the ops is fixed: two
        tensors may share bytes only if every op touching one happens before (is a DAG
        ancestor of) the op that writes the other first."""
        g = self.data.graph
        dag = OpDag.of_graph(g, self.data.exec_order)
        return dag_conflicts(dag.ancestors(), dag.uses, dag.first_write, set(g.outputs))

    def make_tensor(self, operand) -> HostTensor:
        return HostTensor(operand)

    def gen_tensors(self) -> TensorRegistry:
        g = self.data.graph
        spans = self.lifetimes()
        requests: list[Request] = []
        for idx in sorted(self.data.operands):
            operand = g.operands[idx]
            t = self.make_tensor(operand)
            if operand.dtype is None or operand.dynamic:
                pass    # STRING/RESOURCE: kernels handle the raw data; dynamic: sized at run time
            elif (why := self.data.oversize(operand.shape, operand.dtype)) is not None:
                raise CompileError(f"tensor #{idx} {operand.name!r} of shape {operand.shape} "
                                   f"{why}")
            elif operand.is_variable:
                t.allocate()
                fill_initial(t.buffer, operand)
            elif not operand.is_constant and idx not in self.unplanned:
                first, last = spans.get(idx, (0, 0))
                requests.append(Request(idx, t.nbytes, first, last))
            self.tensor_registry.set_native_tensor(idx, t)
        planner = get_planner(self.data.options.get("memory_planner", "WIC"))
        if self.data.options.get("executor") == "Parallel" and len(requests) > 1:
            offsets, size = planner(requests, self.parallel_conflicts())
        else:
            offsets, size = planner(requests)
        self.arena = arena(size)
        for idx, off in offsets.items():
            self.tensor_registry.get_native_itensor(idx).bind_arena(self.arena, off)
        return self.tensor_registry

    def tensor(self, index: int):
        if index < 0:
            return None
        t = self.tensor_registry.get_itensor(index)
        if t is None:
            t = self.data.external.get(index)
        if t is None:
            raise CompileError(f"{self.backend.config.id}: tensor #{index} is not available to "
                               f"this backend (internal lowering error)")
        return t

    def gen_kernels(self) -> dict[int, Kernel]:
        g = self.data.graph
        out: dict[int, Kernel] = {}
        for oi in self.data.op_order:
            op = g.operations[oi]
            out[oi] = self.gen_kernel(oi, op)
        return out

    def gen_kernel(self, oi: int, op) -> Kernel:
        """The configured kernel of op `oi`; KernelRefusal (naming the backend and the op)
        where no kernel applies or its configure refuses."""
        bid = self.backend.config.id
        try:
            cls = self.kernels.lookup(op, self.data.graph)
            if cls is None:
                raise CompileError(f"{bid}: no kernel for op #{oi} {op.name}")
            kernel = cls()
            kernel.configure(op, [self.tensor(i) for i in op.inputs],
                             [self.tensor(o) for o in op.outputs], self)
        except CompileError as e:
            raise KernelRefusal(e, bid, oi) from e
        return kernel

    @property
    def arena_bytes(self) -> int:
        return 0 if self.arena is None else int(self.arena.nbytes)

    def release(self) -> None:
        self.arena = None
