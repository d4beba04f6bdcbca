"""The acl_neon backend: native kernels on host tensors (one planned arena, like cpu).

Its op modules are imported on demand, for the op types a session asks it about (ops.load),
and each native group when a kernel first needs it (native.module): creating the backend
loads `_core` and the core's native runtime only."""
from __future__ import annotations

from ...core.backend import Backend, ContextData, FusionProposal, HostBackendContext, IConfig
from ...core.exec import native as runtime
from ...core.ir import Graph, Operation
from . import folds, fusion, native, ops


class AclNeonConfig(IConfig):
    id = "acl_neon"
    host_memory = True
    support_dynamic_tensor = False
    own_thread_pool = True       # csrc/common/parallel.cpp

    def initialize(self) -> bool:
        """Available when its `_core` module and the core's native runtime (the slots and
        segment runner its kernels bind to: core/exec/_native) are built."""
        ok, why = native.available("core")
        if ok and not runtime.available():
            ok, why = False, (f"the native runtime onert_py.core.exec._native is not built; "
                              f"{native.BUILD_HINT}")
        if not ok:
            self.unavailable_reason = why
        return ok

    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        return ops.load(op.type).supports(op, graph)

    def fusions(self, graph: Graph, op_indices: list[int]) -> list[FusionProposal]:
        """MobileNet inverted-residual blocks, convolutions with a swish or hard-swish
        epilogue, gated 1x1 convolutions, when module _gemm is built; PADs of the channels
        folded into the ADD that reads them, clamp activations into the op before them
        (fusion.py, folds.py)."""
        # kernels the ops already have; a channel PAD takes its ADD (and the clamp after it)
        # before a clamp proposal can
        clamps = folds.propose_channel_pads(graph, op_indices) + \
            folds.propose_clamps(graph, op_indices)
        if not native.available("gemm")[0]:
            return clamps
        return (fusion.propose(graph, op_indices) + folds.propose_epilogues(graph, op_indices)
                + folds.propose_gates(graph, op_indices) + clamps)


class AclNeonContext(HostBackendContext):
    """Host tensors as cpu has them; kernels read `threads` (config num_threads, default all
    cores): how many threads of the process-wide pool (csrc/common/parallel.h) a call uses."""

    def __init__(self, backend, data: ContextData, registry) -> None:
        super().__init__(backend, data, registry)
        n = data.options.get("num_threads")
        self.threads = int(n) if n else native.hardware_threads()


class AclNeonBackend(Backend):
    def __init__(self) -> None:
        self.config = AclNeonConfig()

    def new_context(self, data: ContextData) -> AclNeonContext:
        types = {data.graph.operations[oi].type for oi in data.op_order}
        return AclNeonContext(self, data, ops.load(*sorted(types)))
