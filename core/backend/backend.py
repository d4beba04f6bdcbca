"""The backend API, in onert's shape: Backend, IConfig, ContextData, BackendContext."""
from __future__ import annotations

from abc import ABC, abstractmethod
import math
from typing import Any, NamedTuple

import numpy as np

from ..ir import Graph, Operation
from .kernel import Kernel
from .registry import TensorRegistry


DEFAULT_MAX_TENSOR_BYTES = 1 << 34


class IConfig(ABC):
    """What a backend is and what it can run."""

    id: str = ""
    support_dynamic_tensor: bool = False
    support_permutation: bool = False
    support_fp16: bool = False
    # the backend's kernels run on a thread pool of their own (acl_neon's): in a session that also
    # uses other backends, the host BLAS those use is kept to one thread, so the two pools do
    # not spin against each other on the same cores
    own_thread_pool: bool = False
    # the backend's tensors are HostTensors in host memory (NHWC, numpy dtypes): an operand
    # crossing between two such backends is shared (one buffer) rather than Permuted
    host_memory: bool = False

    def initialize(self) -> bool:
        """Prepare process-wide resources; False (with `unavailable_reason`) if it cannot run here."""
        return True

    unavailable_reason: str = ""

    @abstractmethod
    def supports(self, op: Operation, graph: Graph) -> tuple[bool, str]:
        """(True, "") if this backend can run `op`, else (False, why not)."""

    def sync(self) -> None:
        """Wait until all work queued on this backend is done."""

    def fusions(self, graph: Graph, ops: list[int]) -> list["FusionProposal"]:
        """Groups of this backend's ops that one kernel of it computes (cross-op fusion,
        core/compiler/fusion.py). `ops`: the ops the compiler assigned to it, in execution
        order, in `graph` (the lowered subgraph, shapes inferred). None by default."""
        return []


class FusionProposal(NamedTuple):
    """A group of ops a backend offers to run as one op of its own: `ops` in execution order
    (the last one's output is the group's), the fused op's `type` (the backend registers a
    kernel for it) and `params`, and `why` (explain() shows it). The compiler checks it
    (core/compiler/fusion.py) before it replaces the ops."""

    ops: tuple[int, ...]
    type: str
    params: dict[str, Any]
    why: str


class ContextData:
    """What the compiler gives a backend for one subgraph of one session:

    - `graph`: the lowered subgraph (all backends' ops in it), `subgraph_index`;
    - `op_order`: this backend's ops, `exec_order`: every op of the subgraph, in execution order;
    - `operands`: operands this backend owns (native tensors);
    - `options`: session config relevant to backends;
    - `external`: tensors owned elsewhere (IO, migrants);
    - `compiler`: the compiler of this session (.subgraph(i, shapes), .state).
    """

    def __init__(self, graph: Graph, subgraph_index: int, op_order: list[int],
                 exec_order: list[int], operands: set[int], options: dict[str, Any] | None = None,
                 external: dict[int, Any] | None = None, compiler: Any = None) -> None:
        self.graph, self.subgraph_index = graph, subgraph_index
        self.op_order, self.exec_order, self.operands = op_order, exec_order, operands
        self.options: dict[str, Any] = {} if options is None else options
        self.external: dict[int, Any] = {} if external is None else external
        self.compiler = compiler

    @property
    def max_tensor_bytes(self) -> int:
        """The largest buffer a backend may allocate for this session (config max_tensor_bytes)."""
        return int(self.options.get("max_tensor_bytes", DEFAULT_MAX_TENSOR_BYTES))

    def oversize(self, shape, dtype) -> str | None:
        """Why a buffer of `shape` and `dtype` may not be allocated, or None when it fits."""
        nbytes = math.prod(int(d) for d in shape) * np.dtype(dtype).itemsize
        limit = self.max_tensor_bytes
        if nbytes <= limit:
            return None
        return f"needs {nbytes} bytes, over the limit of {limit} (config max_tensor_bytes)"


class BackendContext(ABC):
    """One backend's part of one subgraph in one session."""

    def __init__(self, backend: "Backend", data: ContextData) -> None:
        self.backend = backend
        self.data = data
        self.tensor_registry = TensorRegistry(backend.config.id)

    @abstractmethod
    def gen_tensors(self) -> TensorRegistry:
        """Create (and plan memory for) the tensors this backend owns."""

    @abstractmethod
    def gen_kernels(self) -> dict[int, Kernel]:
        """Create and configure one kernel per op assigned to this backend."""

    def release(self) -> None:
        """Free what the context holds (buffers, device objects)."""


class Backend(ABC):
    """A backend: lives for the process, creates one BackendContext per session and subgraph."""

    config: IConfig

    @abstractmethod
    def new_context(self, data: ContextData) -> BackendContext:
        ...
