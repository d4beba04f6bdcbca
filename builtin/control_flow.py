"""If, While and CallOnce: builtin kernels that run other subgraphs' executors.

Each child subgraph is compiled once per input-shape signature by the session's compiler, into
its own lowered graph, contexts and executor. The compiler builds the children before the
subgraph that calls them (it asks `subgraph_calls` which pairs a kernel will want), so a
kernel's `ctx.data.compiler.subgraph(index, shapes)` in validate() finds its child compiled.
A call binds the op's input buffers as the child's input tensors (no copy) and
takes the child's outputs back: written straight into the op's output buffers when their
shapes are fixed, adopted (no copy) when the op's outputs are dynamic. A child entered with
input shapes other than those it was compiled for runs its ops the dynamic way.

Natively (bind()): where a child's static run is all native steps and the shapes are fixed,
If and While are native steps themselves (core/exec/csrc/native.cpp if_step, while_step): the
child's I/O slots are pointed at the op's buffers for the call, and a While runs its whole
loop in C++, alternating the loop variables between its outputs and a scratch buffer. So a
loop never returns to Python and the op does not end its caller's native segment. Tracing
on, or a child with a Python kernel, runs the Python form below (the same results).
"""
from __future__ import annotations

import numpy as np

from ..core.backend import HostTensor, Kernel, host_array
from ..core.exec import native
from ..core.ir import Operation
from ..errors import ExecutionError

DEFAULT_MAX_WHILE_ITERATIONS = 1_000_000    # config max_while_iterations


class SubgraphCall(Kernel):
    """Shared by If and While: compiling children, checking signatures, calling them."""

    shape_from_run = True     # outputs take the shapes the child gives them
    follows_buffers = True

    @classmethod
    def subgraph_calls(cls, op: Operation, inputs: list, outputs: list
                       ) -> list[tuple[int, list[tuple[int, ...]]]]:
        """The (child subgraph, input shapes) pairs validate() asks the compiler for, in the
        order it asks, given the op's input and output tensors, or the lowered graph's operands
        (None for an absent one), which have the same shapes and dtypes at compile time. []
        where validate() refuses the op before asking for any child."""
        return []

    def child(self, index: int, shapes: list[tuple[int, ...]]):
        return self.ctx.data.compiler.subgraph(index, [tuple(s) for s in shapes])

    def check_signature(self, child, what: str, ins: list, outs: list | None) -> None:
        """The child takes the op's inputs and gives its outputs: same counts and dtypes."""
        g = child.lowered.graph
        sides = [("input", g.inputs, ins)] + ([("output", g.outputs, outs)] if outs is not None
                                               else [])
        for side, indices, tensors in sides:
            if len(indices) != len(tensors):
                raise self.fail(f"{what} subgraph {child.index} has {len(indices)} {side}s, the "
                                f"op has {len(tensors)}")
            for k, (i, t) in enumerate(zip(indices, tensors)):
                if g.operands[i].dtype != t.dtype:
                    raise self.fail(f"{what} subgraph {child.index} {side} {k} is "
                                    f"{g.operands[i].dtype}, the op's is {t.dtype}")

    @staticmethod
    def call(child, arrays: list[np.ndarray], into: list | None = None) -> list[np.ndarray]:
        """Run `child` on `arrays`; outputs land in `into` arrays where shapes allow, else in
        fresh arrays. Returns the output arrays."""
        for t, a in zip(child.inputs, arrays):
            t.bind_user(a)
        for k, t in enumerate(child.outputs):
            target = into[k] if into is not None else None
            if target is None or target.shape != t.planned_shape:
                target = np.empty(t.planned_shape, t.dtype)      # a fresh array to adopt
            t.bind_user(target)
        try:
            child.executor.execute()
            return [t.buffer for t in child.outputs]
        finally:
            for t in (*child.inputs, *child.outputs):
                t.set_buffer(None)

    @staticmethod
    def native_call(child):
        """The child as the native step builder takes it: (input slots, output slots, steps,
        labels), when a static run of it is all native steps; None otherwise."""
        body = child.executor.native_body()
        if body is None:
            return None
        slot = native.slot_of
        return ([slot(t) for t in child.inputs], [slot(t) for t in child.outputs], *body)

    def native_ready(self, tensors: list) -> bool:
        """Whether the op can run natively on these tensors of its own: the native runtime is
        built, tracing is off (traces then show the children's ops one by one), and each
        tensor is a host tensor of a fixed shape and a plain dtype."""
        return (native.available() and self.ctx.data.compiler.tracer is None
                and all(isinstance(t, HostTensor) and not t.is_dynamic and t.dtype is not None
                        and t.dtype.kind != "O" for t in tensors))

    @staticmethod
    def planned_as(child_tensors: list, tensors: list) -> bool:
        """Whether the child's I/O tensors were planned at these tensors' shapes."""
        return all(tuple(c.planned_shape) == tuple(t.shape)
                   for c, t in zip(child_tensors, tensors))

    def store(self, arrays: list[np.ndarray], fresh: bool) -> None:
        """Put results into the op's outputs: nothing to do when already written in place;
        adopted when `fresh` (not aliased) and the output is dynamic; copied otherwise."""
        for t, a in zip(self.outputs, arrays):
            if t.buffer is a:
                continue
            if t.is_dynamic:
                if fresh:
                    t.adopt(a)
                    continue
                t.resize(a.shape)
            elif tuple(a.shape) != tuple(t.shape):
                raise ExecutionError(f"op #{self.op.index} {self.op.name}: the subgraph gave "
                                     f"shape {tuple(a.shape)} for output {t.index}, which was "
                                     f"inferred as {tuple(t.shape)}")
            np.copyto(t.buffer, a)


class IfLayer(SubgraphCall):
    """inputs: cond, *args; runs then_subgraph or else_subgraph on args."""

    @staticmethod
    def bad_condition(cond) -> bool:
        """Whether `cond` (tensor or operand) cannot be the condition: absent, no dtype, or not
        a single value."""
        return cond is None or cond.dtype is None or bool(cond.shape and
                                                          np.prod(cond.shape) != 1)

    @classmethod
    def subgraph_calls(cls, op: Operation, inputs: list, outputs: list
                       ) -> list[tuple[int, list[tuple[int, ...]]]]:
        """else_subgraph, then then_subgraph, each with the shapes of the op's inputs but the
        condition."""
        if not inputs or cls.bad_condition(inputs[0]):
            return []
        p = op.params
        shapes = [t.shape for t in inputs[1:]]
        return [(p.else_subgraph_index, shapes), (p.then_subgraph_index, shapes)]

    def validate(self) -> None:
        cond = self.inputs[0]
        if self.bad_condition(cond):
            raise self.fail(f"the condition must be a single value, got shape "
                            f"{None if cond is None else cond.shape}")
        args = self.inputs[1:]
        self.branches = [self.child(index, shapes) for index, shapes in
                         self.subgraph_calls(self.op, self.inputs, self.outputs)]
        for name, c in zip(("else", "then"), self.branches):
            self.check_signature(c, name, args, self.outputs)

    def bind(self):
        """Natively (onert's IfLayer, with the branch's steps run in place), where the
        condition is a bool, the outputs' shapes are fixed and both branches are all native
        steps: the chosen branch reads the op's inputs and writes its outputs directly."""
        cond, args = self.inputs[0], self.inputs[1:]
        if not self.native_ready(self.inputs + self.outputs) or cond.dtype != np.bool_:
            return None
        calls = [self.native_call(c) for c in self.branches]
        if any(c is None for c in calls) or not all(
                self.planned_as(b.outputs, self.outputs) and self.planned_as(b.inputs, args)
                for b in self.branches):
            return None
        slot = native.slot_of
        return native._native.if_step(slot(cond), [slot(t) for t in args],
                                      [slot(t) for t in self.outputs], tuple(calls[0]),
                                      tuple(calls[1]))

    def run(self) -> None:
        cond = bool(host_array(self.inputs[0]).reshape(-1)[0])
        child = self.branches[cond]
        args = [host_array(t) for t in self.inputs[1:]]
        into = [None if t.is_dynamic else t.buffer for t in self.outputs]
        self.store(self.call(child, args, into), fresh=True)


class WhileLayer(SubgraphCall):
    """Loop variables in, final values out: cond_subgraph decides, body_subgraph updates."""

    @classmethod
    def subgraph_calls(cls, op: Operation, inputs: list, outputs: list
                       ) -> list[tuple[int, list[tuple[int, ...]]]]:
        """cond_subgraph, then body_subgraph, each with the shapes of the loop variables."""
        if len(inputs) != len(outputs):
            return []
        p = op.params
        shapes = [t.shape for t in inputs]
        return [(p.cond_subgraph_index, shapes), (p.body_subgraph_index, shapes)]

    def validate(self) -> None:
        if len(self.inputs) != len(self.outputs):
            raise self.fail(f"While has {len(self.inputs)} inputs but {len(self.outputs)} "
                            f"outputs; loop variables go in and out one to one")
        self.cond, self.body = [self.child(index, shapes) for index, shapes in
                                self.subgraph_calls(self.op, self.inputs, self.outputs)]
        self.check_signature(self.cond, "cond", self.inputs, None)
        self.check_signature(self.body, "body", self.inputs, self.outputs)
        if len(self.cond.outputs) != 1:
            raise self.fail(f"cond subgraph {self.cond.index} must have one output, it has "
                            f"{len(self.cond.outputs)}")
        self.max_iterations = int(self.ctx.data.options.get("max_while_iterations",
                                                            DEFAULT_MAX_WHILE_ITERATIONS))

    def too_many(self) -> str:
        return (f"the loop did not end after {self.max_iterations} iterations (config "
                f"max_while_iterations; raise it if the model needs more)")

    def bind(self):
        """Natively, where the loop variables keep their shapes and cond and body are all
        native steps: the whole loop runs in one native step, never returning to Python
        (onert's WhileLayer). The values alternate between the op's outputs and a scratch
        buffer per variable instead of being copied back into the body's inputs."""
        if not self.native_ready(self.inputs + self.outputs):
            return None
        cond_out = self.cond.outputs[0]
        if (cond_out.dtype != np.bool_ or int(np.prod(cond_out.planned_shape)) != 1
                or any(tuple(i.shape) != tuple(o.shape) or i.dtype != o.dtype
                       for i, o in zip(self.inputs, self.outputs))
                or not all(self.planned_as(c.inputs, self.inputs) for c in (self.cond, self.body))
                or not self.planned_as(self.body.outputs, self.outputs)):
            return None
        calls = [self.native_call(c) for c in (self.cond, self.body)]
        if any(c is None for c in calls):
            return None
        slot, nat = native.slot_of, native._native
        self.scratch = [np.empty(t.shape, t.dtype) for t in self.outputs]
        self.flag = np.zeros(1, np.bool_)
        return nat.while_step([slot(t) for t in self.inputs], [slot(t) for t in self.outputs],
                              [nat.slot(a) for a in self.scratch],
                              [int(t.nbytes) for t in self.outputs], nat.slot(self.flag),
                              tuple(calls[0]), tuple(calls[1]), int(self.max_iterations),
                              self.too_many())

    def run(self) -> None:
        values = [host_array(t) for t in self.inputs]
        fresh = False
        for _ in range(self.max_iterations + 1):
            (c,) = self.call(self.cond, values)
            if not bool(np.asarray(c).reshape(-1)[0]):
                break
            values = self.call(self.body, values)
            fresh = True
        else:
            raise ExecutionError(f"op #{self.op.index} {self.op.name}: {self.too_many()}")
        self.store(values, fresh)


class CallOnceLayer(SubgraphCall):
    """Runs init_subgraph the first time the session runs (variable initialisation)."""

    @classmethod
    def subgraph_calls(cls, op: Operation, inputs: list, outputs: list
                       ) -> list[tuple[int, list[tuple[int, ...]]]]:
        """init_subgraph, with no inputs."""
        return [(op.params.init_subgraph_index, [])]

    def validate(self) -> None:
        self.index = self.op.params.init_subgraph_index
        ((_, shapes),) = self.subgraph_calls(self.op, self.inputs, self.outputs)
        self.init = self.child(self.index, shapes)
        if self.init.inputs or self.init.outputs:
            raise self.fail(f"CallOnce's init subgraph {self.index} must have no inputs or "
                            f"outputs")

    def done_flag(self) -> np.ndarray:
        """The session's 1-byte "has run" flag of this init subgraph (Session.reset_state
        clears it), shared by the Python run and the native step."""
        flags = self.ctx.data.compiler.state.setdefault("call_once_done", {})
        if self.index not in flags:
            flags[self.index] = np.zeros(1, np.uint8)
        return flags[self.index]

    def bind(self):
        """Natively, where every step of the init subgraph is native: one step running them
        while the flag is clear (then the CALL_ONCE does not break its caller's segment)."""
        if not self.native_ready([]):
            return None
        body = self.init.executor.native_body()
        if body is None:
            return None
        self.flag_slot = native._native.slot(self.done_flag())
        return native._native.once_step(self.flag_slot, body[0])

    def run(self) -> None:
        done = self.done_flag()
        if not done[0]:
            self.call(self.init, [])
            done[0] = 1
