"""The compiler: backends, assignment, lowering, shape inference, contexts, kernels, executor."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import lru_cache

from ...config import Config
from ...errors import BackendNotAvailableError, CompileError, ConfigError
from ..backend import Backend, BackendContext, ContextData
from ..exec import EXECUTORS, Step, Tracer
from ..ir import Model
from .backend_manager import manager
from .constant_folding import fold_constants
from .lowering import BUILTIN, LoweredGraph, lower
from .scheduler import Assignment, Rules, assign
from .shape_inference import Dynamic, infer_shapes

DEFAULT_BACKENDS = ["cpu"]


@lru_cache(maxsize=1)
def known_op_names() -> frozenset[str]:
    """Every name an op-type rule may use: builtin names, IR types and grouped sub-types."""
    from ..ir.op_catalog import ir_type_of
    from ..loader.schema import CIRCLE, TFLITE
    builtins = set(TFLITE.builtin_names.values()) | set(CIRCLE.builtin_names.values())
    return frozenset(builtins | {ir_type_of(b)[0] for b in builtins})


@dataclass
class CompiledSubgraph:
    index: int
    lowered: LoweredGraph
    contexts: dict[str, BackendContext]
    executor: object
    inputs: list = field(default_factory=list)     # builtin IOTensors, model input order
    outputs: list = field(default_factory=list)
    io_float: frozenset[int] = frozenset()   # graph I/O operands it takes and gives as float32

    def release(self) -> None:
        """Stop the executor (worker threads), release every backend context (buffers, device
        objects), then break the reference cycles of the dead kernels and contexts (a kernel
        keeps bound methods of itself, a context is kept by its kernels) so that their memory,
        and the model mapping their constants view, go when the session drops them rather than
        at the next garbage collection. Idempotent; the subgraph cannot run afterwards."""
        executor, contexts = self.executor, self.contexts
        if executor is None:
            return
        self.executor, self.contexts, self.inputs, self.outputs = None, {}, [], []
        try:
            executor.close()
        finally:
            try:
                for ctx in contexts.values():
                    ctx.release()
            finally:
                for step in getattr(executor, "steps", ()):
                    _forget(step.kernel)
                    _forget(step)
                for ctx in contexts.values():
                    _forget(ctx)
                _forget(executor)


def _forget(obj: object) -> None:
    """Drop every attribute of a released object (kernels may use __slots__: then nothing)."""
    attrs = getattr(obj, "__dict__", None)
    if isinstance(attrs, dict):
        attrs.clear()


class Compiler:
    """Compiles a Model for a Config. Backends are loaded once; `compile` may run again with
    new input shapes (the assignment is kept)."""

    def __init__(self, model: Model, config: Config) -> None:
        self.model = model
        self.config = config
        self.requested = list(config.backends or DEFAULT_BACKENDS)
        self.backends: dict[str, Backend] = {}
        self.failures: dict[str, str] = {}
        self.tracer = Tracer(config.tracing) if config.tracing else None
        self.state: dict = {}           # run-time state shared by all subgraphs (variables, ...)
        self.children: dict[tuple, CompiledSubgraph] = {}    # (subgraph, input shapes) -> compiled
        self._compiling: list[tuple] = []
        self._load_backends()
        try:
            rules = Rules(config.op_backend_allops, dict(config.op_backend),
                          dict(config.op_backend_map))
            self._check_rules(rules)
            self.folded = fold_constants(model)
            self.order = [b for b in self.requested if b in self.backends]
            self.assignment: dict[tuple[int, int], Assignment] = assign(
                model, self.backends, self.order, rules)
            self._check_builtin()
        except BaseException:
            self.release()
            raise

    def _load_backends(self) -> None:
        self.backends["builtin"] = manager.load("builtin")
        for bid in self.requested:
            if bid in self.backends:
                continue
            try:
                self.backends[bid] = manager.load(bid, self.config.backend_paths)
            except BackendNotAvailableError as e:
                self.failures[bid] = str(e)
        if not any(b in self.backends for b in self.requested):
            self.release()
            detail = "; ".join(f"{b}: {why}" for b, why in self.failures.items())
            raise BackendNotAvailableError(
                f"none of the requested backends could be loaded ({detail}); bundled backends: "
                f"{', '.join(manager.available())}", self.failures)

    def _check_rules(self, rules: Rules) -> None:
        named = {rules.allops} | set(rules.by_type.values()) | set(rules.by_index.values())
        for bid in sorted(b for b in named if b):
            if bid not in self.backends:
                why = self.failures.get(bid, f"not in the backends list {self.requested}")
                raise CompileError(f"the op-to-backend mapping names backend {bid!r}, which is "
                                   f"not available: {why}")
        known = known_op_names()
        for name in rules.by_type:
            if name not in known and not name.startswith("CUSTOM("):
                near = difflib.get_close_matches(name, sorted(known), n=3)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
                raise ConfigError(f"op_backend names unknown op type {name!r}{hint} Valid names "
                                  f"are onert's (Conv2D, BinaryArithmetic, ...), TFLite's builtin "
                                  f"names (CONV_2D, ADD, ...) or CUSTOM(<code>)")
        for sg, oi in rules.by_index:
            if not 0 <= sg < len(self.model.subgraphs):
                raise CompileError(f"op_backend_map names subgraph {sg}; the model has "
                                   f"{len(self.model.subgraphs)} (0..{len(self.model.subgraphs) - 1})")
            n = len(self.model.subgraphs[sg].operations)
            if oi not in self.model.subgraphs[sg].operations:
                raise CompileError(f"op_backend_map names op {oi} of subgraph {sg}, which has "
                                   f"{n} ops (0..{n - 1})")

    def _check_builtin(self) -> None:
        builtin = self.backends["builtin"].config
        for (sg, oi), a in self.assignment.items():
            if a.backend == BUILTIN:
                op = self.model.subgraphs[sg].operations[oi]
                ok, why = builtin.supports(op, self.model.subgraphs[sg])
                if not ok:
                    raise CompileError(f"op #{oi} {op.name} in subgraph {sg} must run on the "
                                       f"builtin backend, which cannot run it yet: {why}")

    def backend_options(self) -> dict:
        c = self.config
        return {"memory_planner": c.memory_planner, "num_threads": c.num_threads,
                "executor": c.executor,
                "max_tensor_bytes": c.max_tensor_bytes,
                "max_while_iterations": c.max_while_iterations, **c.sections}

    def compile_subgraph(self, sg: int, input_shapes: dict[int, tuple[int, ...]] | None = None,
                         io_float: frozenset[int] = frozenset()) -> CompiledSubgraph:
        """Subgraph `sg` compiled for `input_shapes` (graph input operand -> shape). `io_float`:
        the graph's quantized inputs and outputs taken and given as float32 (onert's float I/O
        type, nnfw_set_input_type / nnfw_set_output_type); the session passes it for the primary
        subgraph, control-flow children never have it."""
        graph = self.model.subgraphs[sg]
        op_backend = {oi: self.assignment[(sg, oi)].backend for oi in graph.operations}
        io_float = frozenset(io_float)
        lowered = lower(graph, op_backend, sg, io_float)
        infer_shapes(lowered.graph, lowered.exec_order, input_shapes or {}, sg,
                     self._control_flow_shapes)
        used = [BUILTIN] + [b for b in self.order if b in set(op_backend.values())]
        contexts: dict[str, BackendContext] = {}
        for bid in used:
            data = ContextData(lowered.graph, sg, lowered.ops_of(bid), lowered.exec_order,
                               lowered.operands_of(bid), self.backend_options(), compiler=self)
            contexts[bid] = self.backends[bid].new_context(data)
        registries = {bid: ctx.gen_tensors() for bid, ctx in contexts.items()}
        builtin = contexts[BUILTIN]
        builtin.other_registries = [r for b, r in registries.items() if b != BUILTIN]
        kernels = {}
        for bid in used[1:] + [BUILTIN]:       # builtin last: Permute needs every registry
            kernels.update(contexts[bid].gen_kernels())
        steps = [Step(oi, lowered.op_backend[oi], kernels[oi]) for oi in lowered.exec_order]
        reg = registries[BUILTIN]
        inputs = [reg.get_itensor(i) for i in lowered.graph.inputs]
        executor = EXECUTORS[self.config.executor](steps, sg, self.tracer, inputs)
        return CompiledSubgraph(sg, lowered, contexts, executor, inputs,
                                [reg.get_itensor(o) for o in lowered.graph.outputs], io_float)

    def subgraph(self, index: int, shapes: list[tuple[int, ...]]) -> CompiledSubgraph:
        """Subgraph `index` compiled for these input shapes (once; later calls reuse it)."""
        key = (index, tuple(tuple(s) for s in shapes))
        if key in self.children:
            return self.children[key]
        if any(k[0] == index for k in self._compiling):
            chain = " -> ".join(str(k[0]) for k in self._compiling)
            raise CompileError(f"subgraph {index} calls itself ({chain} -> {index}); recursive "
                               f"control flow is not supported")
        graph = self.model.subgraphs[index]
        self._compiling.append(key)
        try:
            compiled = self.compile_subgraph(index, dict(zip(graph.inputs, key[1])))
        finally:
            self._compiling.pop()
        self.children[key] = compiled
        return compiled

    def _control_flow_shapes(self, op, shapes: list) -> list[tuple[int, ...]]:
        """Output shapes of If/While from their compiled children; Dynamic when a branch's or
        the loop body's output shapes are not fixed (or not the same on every path)."""
        p = op.params

        def outs(c: CompiledSubgraph) -> list[tuple[int, ...]]:
            g = c.lowered.graph
            if any(g.operands[o].dynamic for o in g.outputs):
                raise Dynamic(f"subgraph {c.index} has outputs shaped at run time")
            return [tuple(g.operands[o].shape) for o in g.outputs]

        if op.type == "If":
            branches = [outs(self.subgraph(i, shapes[1:]))
                        for i in (p.then_subgraph_index, p.else_subgraph_index)]
            if branches[0] != branches[1]:
                raise Dynamic("the branches give different shapes")
            return branches[0]
        self.subgraph(p.cond_subgraph_index, shapes)
        body = outs(self.subgraph(p.body_subgraph_index, shapes))
        if body != [tuple(s) for s in shapes]:
            raise Dynamic("the loop body changes the shapes of its variables")
        return body

    def release(self) -> None:
        """Release the control-flow children compiled so far and this compiler's hold on each
        backend (BackendManager calls onert_backend_destroy when the last holder goes). Every
        step runs even if one fails; the first failure is raised at the end. Idempotent."""
        errors: list[BaseException] = []
        children, self.children = list(self.children.values()), {}
        for child in children:
            try:
                child.release()
            except Exception as e:     # release the rest, then report the first failure
                errors.append(e)
        backends, self.backends = list(self.backends), {}
        for bid in backends:
            try:
                manager.release(bid)
            except Exception as e:
                errors.append(e)
        self.state.clear()
        if errors:
            raise errors[0]
