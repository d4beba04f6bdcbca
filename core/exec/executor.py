"""Executors: run a compiled subgraph's kernels.

Every executor runs `Step`s. A step whose tensors all have compile-time shapes calls the kernel
straight; a step touching a dynamic tensor goes through `DynamicRun`, which infers the output
shapes from the actual inputs, resizes the outputs, re-prepares the kernel when a shape or
buffer changed, then runs it. When a subgraph is entered with input shapes other than the ones
it was compiled for (a While loop whose carried tensors grow, an If branch called with new
shapes), every step runs the dynamic way for that execution. Dynamic tensors are released
after their last reader ran.

Native segments: in a static execution, each maximal run of consecutive steps whose kernels
have a native step (Kernel.bind(), core/exec/native.py) runs as one `Segment`: one call into
C++ with the GIL released and no Python between the ops. A Python kernel ends a segment. With
tracing on, the runner times each op, so the trace keeps one event per op; a failure inside a
segment names the op, its type and backend like any other. Config `native_segments: false`
runs every step through Python (the same results, one op at a time).

`Executor` holds what the three executors share; `LinearExecutor` runs the steps in the
lowered graph's order (Dataflow and Parallel live in dataflow.py).
"""
from __future__ import annotations


from ...errors import ExecutionError, OnertPyError
from ..backend import Kernel, host_array
from . import native
from .tracing import op_args


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
            k.reprepare()
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


class Step:
    """One op of an executor's order: its kernel, `fast` (what runs in a static execution),
    `dynamic` (what runs when shapes may differ) and `releases` (Linear: dynamic tensors dead
    after it)."""

    def __init__(self, op_index: int, backend: str, kernel: Kernel) -> None:
        self.op_index, self.backend, self.kernel = op_index, backend, kernel
        self.releases: list = []
        k = kernel
        self.dynamic = DynamicRun(k)
        if k.dynamic:
            self.fast = self.dynamic
        elif k.native_step is None and not k.follows_buffers and any(
                getattr(t, "rebinds", False) for t in (*k.inputs, *k.outputs) if t is not None):
            self.fast = Rebinding(k)
        else:
            self.fast = k.run


class Rebinding:
    """A Python kernel's run on tensors that are rebound between runs (IO tensors shared with
    the builtin backend): prepared again first whenever one of them got another buffer, since
    prepare() may have kept views of the old one. Native steps need none of this: they follow
    the tensors' slots."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.tensors = [t for t in (*kernel.inputs, *kernel.outputs)
                        if t is not None and getattr(t, "rebinds", False)]
        self.seen = tuple(t.version for t in self.tensors)

    def __call__(self) -> None:
        seen = tuple(t.version for t in self.tensors)
        if seen != self.seen:
            self.kernel.reprepare()
            self.seen = seen
        self.kernel.run()


class Executor:
    """Shared by the executors: the steps, input-shape check, error wrapping, tracing."""

    name = ""

    def __init__(self, steps: list[Step], subgraph_index: int = 0, tracer=None,
                 inputs: list | None = None, segments: bool = True) -> None:
        self.steps = steps
        self.subgraph_index = subgraph_index
        self.tracer = tracer
        self.inputs = list(inputs or [])            # the subgraph's input tensors
        self.compiled_shapes = [tuple(t.shape) for t in self.inputs]
        self._live = steps
        self._dirty = False
        self._parent_span = None
        self.segments = segments and native.available()
        self._units: Units | None = None

    def shapes_changed(self) -> bool:
        """Whether the bound inputs differ in shape from the ones compiled for."""
        return any(tuple(t.shape) != c for t, c in zip(self.inputs, self.compiled_shapes))

    def execute(self) -> None:
        """Run the subgraph once. After a run at other input shapes, tensors hold run-time
        buffers and kernels are prepared for them, so the next run at the compiled shapes also
        goes the dynamic way once, which puts every tensor back on its planned slot."""
        changed = self.shapes_changed()
        dynamic = changed or self._dirty
        if dynamic:
            self._units = None          # kernels are prepared (and bound) again
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

    @property
    def all_native(self) -> bool:
        """Whether a static run of this executor is native segments only (no Python kernel:
        NumPy's error state does not matter to it); False until its first run."""
        u = self._units
        return u is not None and u.all_native

    def fast_io(self, outputs: list):
        """(segment, input slots, output slots) when a static run of this executor is one
        native segment and its last run left nothing to redo (Session.run then binds the
        arrays and runs it in one native call); None otherwise."""
        u = self._units
        if u is None or self._dirty or self.tracer is not None or len(u.segments) != 1 \
                or u.segments[0] is None:
            return None
        if u.io is None:
            u.io = (u.segments[0], [native.slot_of(t) for t in self.inputs],
                    [native.slot_of(t) for t in outputs])
        return u.io

    def static_order(self) -> list[Step]:
        """The steps in the order a static execution runs them (the order memory is planned
        for)."""
        return self._live

    def native_body(self) -> tuple[list, list[str]] | None:
        """(native steps, labels naming their ops) of a static execution, in its order, when
        every step has a native step and no tensor is dynamic: an If, While or CallOnce then
        runs this subgraph inside its own native step. None otherwise, or while the last run
        went the dynamic way (kernels not yet back on their planned buffers)."""
        if not self.segments or self.tracer is not None or self._dirty:
            return None
        order = self.static_order()
        if any(s.kernel.native_step is None or s.kernel.dynamic for s in order):
            return None
        return ([s.kernel.native_step for s in order],
                [f"subgraph {self.subgraph_index} op #{s.kernel.op.index} {s.kernel.op.name} "
                 f"on {s.backend}" for s in order])

    def units(self, order: list[Step]) -> "Units":
        """The static execution of `order` as units (built once; again after a dynamic run):
        each maximal run of native steps one Segment, each other step its own."""
        if self._units is None:
            self._units = Units(order, self.segments)
        return self._units

    def run_units(self, units: "Units") -> None:
        """A static execution through `units` (traced when tracing is on)."""
        if self.tracer is not None:
            self._run_units_traced(units)
            return
        i = 0
        runs = units.runs
        try:
            for run in runs:
                failed = run()
                if failed is not None and failed >= 0:
                    raise self.failure(units.steps[i][failed],
                                       RuntimeError(units.segments[i].error))
                i += 1
        except OnertPyError:
            raise
        except Exception as e:
            raise self.failure(units.steps[i][0], e) from e

    def _run_units_traced(self, units: "Units") -> None:
        tracer = self.tracer
        for seg, steps in zip(units.segments, units.steps):
            if seg is None:
                self.run_step(steps[0], False)
                continue
            failed, times = seg.run_traced()
            parent = self._parent_span or tracer.current()
            for k in range(len(times) // 2):
                step = steps[k]
                op = step.kernel.op
                args = op_args(step.kernel)
                tracer.record(f"${op.index} {op.name}",
                              tracer.tid(f"{self.subgraph_index}, {step.backend}"), op.name,
                              step.backend, args, tracer.us_of_ns(times[2 * k]),
                              tracer.us_of_ns(times[2 * k + 1]), parent)
            if failed >= 0:
                raise self.failure(steps[failed], RuntimeError(seg.error))

    def _traced(self, step: Step, fn) -> None:
        tracer, op = self.tracer, step.kernel.op
        args = op_args(step.kernel)
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
        self._simple = all(not isinstance(s.fast, DynamicRun) and not s.releases
                           for s in self._live)

    def _run(self, dynamic: bool) -> None:
        if self._simple and not dynamic:
            self.run_units(self.units(self._live))
            return
        for step in self._live:
            self.run_step(step, dynamic)
            for t in step.releases:
                t.release()


class Units:
    """A static execution order as units: `runs[i]` is a Segment's run (returns -1, or the
    position of the op that failed) or a Python step's run (returns None); `steps[i]` the
    steps it covers; `segments[i]` the Segment or None."""

    def __init__(self, order: list[Step], segments: bool) -> None:
        self.runs: list = []
        self.steps: list[list[Step]] = []
        self.segments: list = []
        self.io = None          # Executor.fast_io's answer, once asked
        chain: list[Step] = []

        def close_chain() -> None:
            if chain:
                seg = native.segment([s.kernel.native_step for s in chain])
                self.runs.append(seg.run)
                self.steps.append(list(chain))
                self.segments.append(seg)
                chain.clear()

        for s in order:
            k = s.kernel
            if segments and k.native_step is not None and not k.dynamic:
                chain.append(s)
                continue
            close_chain()
            self.runs.append(s.fast)
            self.steps.append([s])
            self.segments.append(None)
        close_chain()

    @property
    def all_native(self) -> bool:
        return all(seg is not None for seg in self.segments)

    @property
    def native_ops(self) -> int:
        return sum(len(st) for st, seg in zip(self.steps, self.segments) if seg is not None)
