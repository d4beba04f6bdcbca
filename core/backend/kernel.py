"""Kernel base class: configure() validates and prepares once, run() only computes."""
from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from ...errors import CompileError
from ..ir import Operation
from ..ir.op_catalog import REFUSED
from .tensor import ITensor


class KernelRefusal(CompileError):
    """A backend's kernel refused its op while the subgraph was being compiled (configure:
    validate or prepare found shapes, parameters or device limits it cannot handle). The
    compiler hands the op to the next backend in the list (core/compiler/fallback.py); raised
    to the user only as `error`, the kernel's own CompileError."""

    def __init__(self, error: CompileError, backend: str, op_index: int) -> None:
        super().__init__(str(error))
        self.error, self.backend, self.op_index = error, backend, op_index


class Kernel:
    """One operation's executable form on one backend (onert's `<Op>Layer`).

    `configure` receives the op and its tensors; it checks everything a run relies on and
    raises CompileError otherwise. `prepare` builds whatever depends on shapes and buffers
    (views, temporaries); it runs at configure time and again when a dynamic shape changes.
    `run` computes, without checks or allocation. A kernel with native compute also returns a
    native step from `bind()` (its run over the tensors' buffers, taking no arguments), which
    the executors run instead of `run` inside a native segment. Constant results are the compiler's: ops on
    constants are folded before kernels exist (core/compiler/constant_folding.py).

    Dynamic shapes: when an input or output tensor `is_dynamic`, configure() only validates
    (shapes and buffers are not known yet: validate must not rely on them); before each run the
    executor infers the output shapes from the actual inputs, resizes the outputs and calls
    `prepare()` again whenever a tensor's shape or buffer changed. A kernel whose output shape
    depends on the result itself (Where, Unique, NMS) sets `shape_from_run = True`; the executor
    then leaves its outputs alone and `run` sizes them (`tensor.resize(shape)` or `adopt`).
    """

    shape_from_run = False
    # the kernel reads its tensors' `buffer` afresh in every run (keeps no views from
    # prepare()): it needs no re-prepare when a tensor is rebound (an IO tensor)
    follows_buffers = False
    native_step = None     # the run bound to the tensors' slots (bind()); None: run() in Python

    op: Operation
    inputs: list[ITensor | None]
    outputs: list[ITensor]
    run: Callable[[], None] | None

    def configure(self, op: Operation, inputs: list[ITensor | None], outputs: list[ITensor],
                  ctx: Any = None) -> None:
        self.op, self.inputs, self.outputs, self.ctx = op, inputs, outputs, ctx
        self.validate()
        if not self.dynamic:
            self.reprepare()

    def reprepare(self) -> None:
        """prepare() and bind() again: after a shape or buffer changed."""
        self.prepare()
        self.native_step = self.bind()

    @classmethod
    def supports(cls, op: Operation, graph: Any) -> tuple[bool, str]:
        """(ok, reason) for an op its registration matched: the class's own checks of dtypes,
        operands and parameters (KernelRegistry.supports asks). Accepts by default."""
        return True, ""

    @property
    def dynamic(self) -> bool:
        """Whether any tensor of this kernel gets its shape at run time."""
        return any(t is not None and t.is_dynamic for t in (*self.inputs, *self.outputs))

    def validate(self) -> None:
        """Check dtypes, ranks and params; raise CompileError via self.fail()."""

    def prepare(self) -> None:
        """Build shape-dependent state; called at configure and after shape changes."""

    def bind(self):
        """This kernel's run as a native step bound to its tensors' slots
        (core/exec/native.py), made after each prepare(); None (the default) when the kernel
        runs in Python. The executors chain consecutive native steps into one native call."""
        return None

    def run(self) -> None:  # type: ignore[no-redef]
        raise NotImplementedError

    def fail(self, msg: str) -> CompileError:
        op = self.op
        return CompileError(f"op #{op.index} {op.name}: {msg}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.op!r})"


Predicate = Callable[[Operation, Any], bool]


class Registration(NamedTuple):
    """One kernel class registered for one op key, with the form of the op it runs.

    `dtypes`: the dtypes of the op's first input that this kernel is for (None: any).
    `when`: a predicate `(op, graph) -> bool` naming the form it runs (quantized, hybrid, ...;
    None: the op's plain form). The registry tries the most specific registrations first."""

    key: str
    cls: type[Kernel]
    dtypes: frozenset | None = None
    when: Predicate | None = None

    @property
    def rank(self) -> int:
        """0 (a form and dtypes) .. 3 (the plain kernel): lookup order across keys."""
        return (self.when is None) * 2 + (self.dtypes is None)

    def matches(self, dtype: np.dtype | None, op: Operation, graph: Any) -> bool:
        if self.dtypes is not None and dtype not in self.dtypes:
            return False
        return self.when is None or (graph is not None and bool(self.when(op, graph)))

    def describe(self) -> str:
        """`key [dtypes] (when)`, as docs and error messages show it."""
        parts = [self.key]
        if self.dtypes is not None:
            parts.append("[" + ", ".join(sorted(str(d) for d in self.dtypes)) + "]")
        if self.when is not None:
            parts.append(f"({getattr(self.when, '__name__', repr(self.when))})")
        return " ".join(parts)


class KernelRegistry:
    """A backend's kernels: its registrations *are* its supported-op list (onert's one op list
    per backend, TFLM's registration that refuses duplicates).

    `register(key, ..., dtypes=..., when=...)` says which op key ("Type" or "Type.SUBTYPE") a
    kernel class runs and in which form: for inputs of these dtypes, and/or when a predicate
    holds (core/ops/forms.py: `quantized`, `hybrid`, ...). `lookup` picks, among the
    registrations for "Type.SUBTYPE" and "Type", the first that matches, trying in turn those
    with a form and dtypes, with a form, with dtypes, then the plain kernel (within each, the
    sub-type key first, then registration order). `supports` is the backend's support check:
    the chosen class's own `supports` (its dtype and operand checks), or why none applies."""

    def __init__(self, backend_id: str) -> None:
        self.backend_id = backend_id
        self._by_key: dict[str, list[Registration]] = {}

    def register(self, *keys: str, dtypes: Iterable | None = None,
                 when: Predicate | None = None) -> Callable[[type[Kernel]], type[Kernel]]:
        """Decorator: register the class under each of `keys` for this form. Registering the
        same key, dtypes and form twice is an error."""
        dts = None if dtypes is None else frozenset(np.dtype(d) for d in dtypes)

        def deco(cls: type[Kernel]) -> type[Kernel]:
            if "backend_id" not in vars(cls):     # names this backend in the class's refusals
                cls.backend_id = self.backend_id
            for key in keys:
                entry = Registration(key, cls, dts, when)
                same = self._by_key.setdefault(key, [])
                for other in same:
                    if other.when is when and (other.dtypes == dts or (
                            other.dtypes and dts and other.dtypes & dts)):
                        raise ValueError(f"{self.backend_id}: kernel for {entry.describe()} "
                                         f"registered twice ({other.cls.__name__}, "
                                         f"{cls.__name__})")
                same.append(entry)
            return cls
        return deco

    def candidates(self, op: Operation) -> list[Registration]:
        """The registrations for `op`'s keys, in the order lookup tries them."""
        keys = ([f"{op.type}.{op.subtype}"] if op.subtype is not None else []) + [op.type]
        found = [r for k in keys for r in self._by_key.get(k, ())]
        return sorted(found, key=lambda r: r.rank)      # stable: sub-type key first

    def match(self, op: Operation, graph: Any = None) -> Registration | None:
        """The registration that runs `op` (None: this backend has none). Without `graph`,
        only plain registrations are considered."""
        dtype = None
        if graph is not None and op.inputs and op.inputs[0] >= 0:
            dtype = graph.operands[op.inputs[0]].dtype
        return next((r for r in self.candidates(op) if r.matches(dtype, op, graph)), None)

    def lookup(self, op: Operation, graph: Any = None) -> type[Kernel] | None:
        """The kernel class that runs `op` (None: this backend has none)."""
        r = self.match(op, graph)
        return None if r is None else r.cls

    def supports(self, op: Operation, graph: Any) -> tuple[bool, str]:
        """(ok, reason): a kernel is registered for the op's form and accepts the op."""
        cls = self.lookup(op, graph)
        if cls is None:
            why = REFUSED.get(op.type)
            return False, f"{self.backend_id} has no kernel for {op.type}" + (
                f".{op.subtype}" if op.subtype else "") + (f": {why}" if why else "")
        try:
            return cls.supports(op, graph)
        except (IndexError, KeyError, ValueError, TypeError) as e:   # malformed op operands
            return False, (f"{self.backend_id} {op.type} cannot read the op's operands "
                           f"({len(op.inputs)} inputs, {len(op.outputs)} outputs): "
                           f"{type(e).__name__}: {e}")

    def keys(self) -> list[str]:
        return sorted(self._by_key)

    def registrations(self) -> list[Registration]:
        """Every registration, by key then lookup order (the backend's op list)."""
        return [r for k in self.keys() for r in sorted(self._by_key[k], key=lambda r: r.rank)]
