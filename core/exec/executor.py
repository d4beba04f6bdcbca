"""Executors: run a compiled subgraph's kernels.

Every executor runs `Step`s. A step whose tensors all have compile-time shapes calls the kernel
straight; a step touching a dynamic tensor goes through `DynamicRun`, which infers the output
shapes from the actual inputs, resizes the outputs, re-prepares the kernel when a shape or
buffer changed, then runs it. When a subgraph is entered with input shapes other than the ones
it was compiled for (a While loop whose carried tensors grow, an If branch called with new
shapes), every step runs the dynamic way for that execution. Dynamic tensors are released
after their last reader ran.

`Executor` holds what the three executors share; `LinearExecutor` runs the steps in the
lowered graph's order (Dataflow and Parallel live in dataflow.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...errors import ExecutionError, OnertPyError
from ..backend import Kernel, host_array


class RuntimeValues:
    """Shape-rule value accessor at run time: the data of the op's input tensors."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.position = {}
        for k, i in enumerate(kernel.op.inputs):
            if i >= 0:
                self.position.setdefault(i, k)

    def value(self, index: int):
        k = self.position.get(index)
        if k is None:
            return None
        t = self.kernel.inputs[k]
        return None if t is None else host_array(t)

    def need(self, index: int, what: str):
        data = self.value(index)
        if data is None:
            raise ExecutionError(f"{what} of op #{self.kernel.op.index} is not available")
        return data

    def declared(self, index: int):
        """The compile-time shape of operand `index` (an input or output of the op)."""
        op, k = self.kernel.op, self.position.get(index)
        t = self.kernel.inputs[k] if k is not None else self.kernel.outputs[op.outputs.index(index)]
        return tuple(getattr(t, "planned_shape", t.shape))


class DynamicRun:
    """A kernel's run with run-time shape inference in front of it."""

    def __init__(self, kernel: Kernel) -> None:
        from ..compiler.shape_inference import infer_op   # compiler imports exec, not the reverse
        self.kernel = kernel
        self.infer = infer_op
        self.values = RuntimeValues(kernel)
        self.tensors = [t for t in (*kernel.inputs, *kernel.outputs) if t is not None]
        self.seen: tuple | None = None

    def __call__(self) -> None:
        k = self.kernel
        if k.shape_from_run:
            k.run()
            return
        shapes = [None if t is None else tuple(t.shape) for t in k.inputs]
        try:
            out = self.infer(k.op, shapes, self.values)
        except Exception as e:
            raise ExecutionError(f"op #{k.op.index} {k.op.name}: run-time shape inference "
                                 f"failed for input shapes {shapes}: {e}") from e
        for t, shape in zip(k.outputs, out):
            if t is not None:
                check_size(k, t, shape)
                t.resize(shape)
        seen = tuple((t.shape, getattr(t, "version", 0)) for t in self.tensors)
        if seen != self.seen:
            k.prepare()
            k.native_step = k.bind()
            self.seen = seen
        k.run()


def check_size(kernel, tensor, shape) -> None:
    """Refuse a run-time resize past the session's max_tensor_bytes, before allocating."""
    ctx = getattr(kernel, "ctx", None)
    if tensor.dtype is None or ctx is None:
        return
    why = ctx.data.oversize(shape, tensor.dtype)
    if why is not None:
        op = kernel.op
        raise ExecutionError(f"op #{op.index} {op.name}: output of shape {tuple(shape)} {why} "
                             f"at run time")


@dataclass
class Step:
    op_index: int
    backend: str
    kernel: Kernel
    fast: Callable[[], None] | None = None      # what runs in a static execution
    dynamic: DynamicRun | None = None            # what runs when shapes may differ
    releases: list = field(default_factory=list)       # Linear: dynamic tensors dead after it

    def __post_init__(self) -> None:
        self.dynamic = DynamicRun(self.kernel)
        self.fast = self.dynamic if self.kernel.dynamic else self.kernel.run


class Executor:
    """Shared by the executors: the steps, input-shape check, error wrapping, tracing."""

    name = ""

    def __init__(self, steps: list[Step], subgraph_index: int = 0, tracer=None,
                 inputs: list | None = None) -> None:
        self.steps = steps
        self.subgraph_index = subgraph_index
        self.tracer = tracer
        self.inputs = list(inputs or [])            # the subgraph's input tensors
        self.compiled_shapes = [tuple(t.shape) for t in self.inputs]
        self._live = steps
        self._dirty = False
        self._parent_span = None

    def shapes_changed(self) -> bool:
        """Whether the bound inputs differ in shape from the ones compiled for."""
        return any(tuple(t.shape) != c for t, c in zip(self.inputs, self.compiled_shapes))

    def execute(self) -> None:
        """Run the subgraph once. After a run at other input shapes, tensors hold run-time
        buffers and kernels are prepared for them, so the next run at the compiled shapes also
        goes the dynamic way once, which puts every tensor back on its planned slot."""
        changed = self.shapes_changed()
        dynamic = changed or self._dirty
        self._dirty = True
        if self.tracer is not None:      # the span (If/While) this execution runs inside
            self._parent_span = self.tracer.current()
        self._run(dynamic)
        self._dirty = changed

    def close(self) -> None:
        """Stop whatever the executor runs on (worker threads); it cannot run afterwards."""

    def _run(self, dynamic: bool) -> None:
        raise NotImplementedError

    def run_step(self, step: Step, dynamic: bool) -> None:
        """Run one step (traced when tracing is on); failures name the op and backend."""
        fn = step.dynamic if dynamic else step.fast
        try:
            if self.tracer is None:
                fn()
            else:
                self._traced(step, fn)
        except OnertPyError:
            raise
        except Exception as e:
            raise self.failure(step, e) from e

    def failure(self, step: Step, e: Exception) -> ExecutionError:
        op = step.kernel.op
        return ExecutionError(f"subgraph {self.subgraph_index} op #{op.index} {op.name} on "
                              f"{step.backend} failed: {type(e).__name__}: {e}")

    def _traced(self, step: Step, fn) -> None:
        tracer, op = self.tracer, step.kernel.op
        args = {f"input{k}": str(tuple(t.shape)) for k, t in enumerate(step.kernel.inputs)
                if t is not None}
        name = "Permute" if op.type == "Permute" else op.name
        with tracer.span(f"${op.index} {name}", f"{self.subgraph_index}, {step.backend}",
                         name, step.backend, args, self._parent_span):
            fn()



class LinearExecutor(Executor):
    """Runs the steps in the lowered graph's execution order; kernels folded at compile are
    skipped. A dynamic tensor is freed after its last reader in that order."""

    name = "Linear"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        last: dict[int, tuple[Step, object]] = {}
        for s in self._live:
            for i, t in zip(s.kernel.op.inputs, s.kernel.inputs):
                if i >= 0 and t is not None and getattr(t, "is_dynamic", False):
                    last[i] = (s, t)
        for s, t in last.values():
            s.releases.append(t)
        self._fast_runs = [s.fast for s in self._live]
        self._simple = all(not isinstance(s.fast, DynamicRun) and not s.releases
                           for s in self._live)

    def _run(self, dynamic: bool) -> None:
        if self._simple and not dynamic and self.tracer is None:
            self._execute_fast()
            return
        for step in self._live:
            self.run_step(step, dynamic)
            for t in step.releases:
                t.release()

    def _execute_fast(self) -> None:
        i = 0
        try:
            for run in self._fast_runs:
                run()
                i += 1
        except OnertPyError:
            raise
        except Exception as e:
            raise self.failure(self._live[i], e) from e
