"""Kernel base class: configure() validates and prepares once, run() only computes."""
from __future__ import annotations

from typing import Any, Callable

from ...errors import CompileError
from ..ir import Operation
from .tensor import ITensor


class Kernel:
    """One operation's executable form on one backend (onert's `<Op>Layer`).

    `configure` receives the op and its tensors; it checks everything a run relies on and
    raises CompileError otherwise. `prepare` builds whatever depends on shapes and buffers
    (views, temporaries); it runs at configure time and again when a dynamic shape changes.
    `run` computes, without checks or allocation. Constant results are the compiler's: ops on
    constants are folded before kernels exist (core/compiler/constant_folding.py).

    Dynamic shapes: when an input or output tensor `is_dynamic`, configure() only validates
    (shapes and buffers are not known yet: validate must not rely on them); before each run the
    executor infers the output shapes from the actual inputs, resizes the outputs and calls
    `prepare()` again whenever a tensor's shape or buffer changed. A kernel whose output shape
    depends on the result itself (Where, Unique, NMS) sets `shape_from_run = True`; the executor
    then leaves its outputs alone and `run` sizes them (`tensor.resize(shape)` or `adopt`).
    """

    shape_from_run = False

    op: Operation
    inputs: list[ITensor | None]
    outputs: list[ITensor]
    run: Callable[[], None] | None

    def configure(self, op: Operation, inputs: list[ITensor | None], outputs: list[ITensor],
                  ctx: Any = None) -> None:
        self.op, self.inputs, self.outputs, self.ctx = op, inputs, outputs, ctx
        self.validate()
        if not self.dynamic:
            self.prepare()

    @property
    def dynamic(self) -> bool:
        """Whether any tensor of this kernel gets its shape at run time."""
        return any(t is not None and t.is_dynamic for t in (*self.inputs, *self.outputs))

    def validate(self) -> None:
        """Check dtypes, ranks and params; raise CompileError via self.fail()."""

    def prepare(self) -> None:
        """Build shape-dependent state; called at configure and after shape changes."""

    def run(self) -> None:  # type: ignore[no-redef]
        raise NotImplementedError

    def fail(self, msg: str) -> CompileError:
        op = self.op
        return CompileError(f"op #{op.index} {op.name}: {msg}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.op!r})"


class KernelRegistry:
    """Per-backend map from IR op type (or "Type.SUBTYPE") to kernel class; the keys are the
    backend's supported-op list. Registering a key twice is an error."""

    def __init__(self, backend_id: str) -> None:
        self.backend_id = backend_id
        self._kernels: dict[str, type[Kernel]] = {}
        # optional `select(op, graph) -> class | None`: another kernel class for a form of the
        # op that the registered one does not compute (e.g. hybrid int8-weight FullyConnected,
        # quantized kernels); consulted also for ops with no registered kernel
        self.select: Callable | None = None

    def register(self, *keys: str) -> Callable[[type[Kernel]], type[Kernel]]:
        def deco(cls: type[Kernel]) -> type[Kernel]:
            for key in keys:
                if key in self._kernels:
                    raise ValueError(f"{self.backend_id}: kernel for {key} registered twice")
                self._kernels[key] = cls
            return cls
        return deco

    def lookup(self, op: Operation, graph: Any = None) -> type[Kernel] | None:
        cls = None
        if op.subtype is not None:
            cls = self._kernels.get(f"{op.type}.{op.subtype}")
        if cls is None:
            cls = self._kernels.get(op.type)
        if graph is not None and self.select is not None:
            cls = self.select(op, graph) or cls
        return cls

    def keys(self) -> list[str]:
        return sorted(self._kernels)
