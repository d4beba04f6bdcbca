"""The compiler: backends, assignment, lowering, shape inference, contexts, kernels, executor."""
from __future__ import annotations

from collections import deque
from functools import lru_cache

from ...config import DEFAULT_BACKENDS, Config
from ...errors import BackendNotAvailableError, CompileError, ConfigError
from ..backend import Backend, BackendContext, ContextData, KernelRefusal
from ..exec import executor_class
from ..exec.executor import Step
from ..ir import Model
from .backend_manager import manager
from .constant_folding import fold_constants
from .fallback import Refusals, backend_for, refuse_after_inference, run_time_shaped
from .fusion import fuse
from .lowering import BUILTIN, LoweredGraph, lower
from .scheduler import Assignment, Rules, assign
from .shape_inference import Dynamic, infer_shapes

LOG_LENGTH = 256              # builds Compiler.compile_log keeps
Key = tuple[int, tuple[tuple[int, ...], ...]]     # (subgraph index, input shapes)


@lru_cache(maxsize=1)
def known_op_names() -> frozenset[str]:
    """Every name an op-type rule may use: builtin names, IR types and grouped sub-types."""
    from ..ir.op_catalog import ir_type_of
    from ..loader.schema import CIRCLE, TFLITE
    builtins = set(TFLITE.builtin_names.values()) | set(CIRCLE.builtin_names.values())
    return frozenset(builtins | {ir_type_of(b)[0] for b in builtins})


class CompiledSubgraph:
    """One subgraph compiled: its lowered graph, backend contexts and executor; `inputs` and
    `outputs` are its builtin IOTensors in model order, `io_float` the graph I/O operands it
    takes and gives as float32."""

    def __init__(self, index: int, lowered: LoweredGraph, contexts: dict[str, BackendContext],
                 executor: object, inputs: list | None = None, outputs: list | None = None,
                 io_float: frozenset[int] = frozenset()) -> None:
        self.index, self.lowered, self.contexts, self.executor = index, lowered, contexts, executor
        self.inputs: list = [] if inputs is None else inputs
        self.outputs: list = [] if outputs is None else outputs
        self.io_float = io_float

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
        self.defaulted = not config.backends    # the default list: the fastest available
        self.requested = list(config.backends or DEFAULT_BACKENDS)
        self.backends: dict[str, Backend] = {}
        self.failures: dict[str, str] = {}
        if config.tracing:
            from ..exec.tracing import Tracer
            self.tracer = Tracer(config.tracing)
        else:
            self.tracer = None
        self.state: dict = {}           # run-time state shared by all subgraphs (variables, ...)
        self.children: dict[Key, CompiledSubgraph] = {}    # (subgraph, input shapes) -> compiled
        # child -> positions of its inputs shaped only at run time (While loop variables that
        # change shape): its ops reading them go to backends that take dynamic shapes
        self.varying: dict[Key, frozenset[int]] = {}
        # (subgraph, input shapes, depth) per subgraph built, in build order (children before
        # their callers); depth: builds in progress when it began, 0 unless a kernel asked for
        # a child the shape pass did not foresee. The last LOG_LENGTH builds.
        self.compile_log: deque[tuple[int, tuple[tuple[int, ...], ...], int]] = deque(
            maxlen=LOG_LENGTH)
        self._building: list[Key | None] = []     # builds in progress: child keys, None: root
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
                import difflib
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
        subgraph, control-flow children never have it.

        Flat, bottom-up: a shape-only pass (`_plan`) lowers the subgraph and infers its shapes,
        and does the same, recursively, for every (child subgraph, input shapes) pair its If,
        While and CallOnce ops need; then the children not compiled yet are built in post-order
        (each before every subgraph that calls it) into `children`, and the subgraph last. onert's
        Compiler::compile likewise runs static shape inference from the primary subgraph into
        every If/While child before it creates any executor."""
        io_float = frozenset(io_float)
        pending: dict[Key, LoweredGraph] = {}
        lowered = self._plan(sg, input_shapes or {}, io_float, [], pending)
        self._build_pending(pending)
        return self._build(sg, lowered, io_float, None)

    def subgraph(self, index: int, shapes: list[tuple[int, ...]]) -> CompiledSubgraph:
        """Subgraph `index` compiled for these input shapes (once; later calls reuse it). The
        If/While/CallOnce kernels ask for their children here when they are configured; the
        flat compilation has built them already, so this is a lookup. A pair not compiled yet
        goes through the same flat path as `compile_subgraph`."""
        key = (index, tuple(tuple(s) for s in shapes))
        if key in self.children:
            return self.children[key]
        pending: dict[Key, LoweredGraph] = {}
        # asked during a build (not foreseen by the shape pass): the children being built are
        # the callers, checked for recursion like the children being planned
        self._plan_child(key, [k for k in self._building if k is not None], pending)
        self._build_pending(pending)
        return self.children[key]

    def _plan(self, sg: int, input_shapes: dict[int, tuple[int, ...]], io_float: frozenset[int],
              stack: list[Key], pending: dict[Key, LoweredGraph],
              refusals: Refusals | None = None, varying: frozenset[int] = frozenset()
              ) -> LoweredGraph:
        """The shape-only pass for one subgraph: lowered, shapes inferred (If/While output shapes
        from their children, planned first), then the children its builtin kernels will ask
        for when configured (CallOnce's, and If/While whose inputs are dynamic), in the order
        they ask. Children not compiled yet are added to `pending` in post-order. `stack`: the
        children being planned, outermost first (recursion check). An op whose backend refuses
        it once shapes are inferred moves to the next backend (`refusals`: those known
        already; compiler/fallback.py), and the subgraph is lowered again; `varying`: positions
        of inputs shaped at run time, which the backends see as dynamic."""
        graph = self.model.subgraphs[sg]
        refusals = {oi: dict(r) for oi, r in (refusals or {}).items()}
        host = frozenset(b for b, be in self.backends.items()
                         if getattr(be.config, "host_memory", False))

        def control_flow(op, shapes: list) -> list[tuple[int, ...]]:
            return self._control_flow_shapes(op, shapes, stack, pending)

        while True:           # each round moves at least one op to a later backend
            op_backend = {oi: backend_for(op, sg, graph, self.assignment[(sg, oi)], self.order,
                                          self.backends, refusals.get(oi))
                          for oi, op in graph.operations.items()}
            lowered = lower(graph, op_backend, sg, io_float, host, share_outputs=not stack)
            infer_shapes(lowered.graph, lowered.exec_order, input_shapes, sg, control_flow)
            late = run_time_shaped(lowered, [i for k, i in enumerate(graph.inputs)
                                             if k in varying])
            if not refuse_after_inference(graph, lowered, self.backends, refusals, late):
                break
        if self.config.fuse:        # groups of ops a backend computes as one (compiler/fusion.py)
            fuse(lowered, self.backends, late)
        lowered.refusals = refusals
        for oi in lowered.exec_order:      # control flow reading them: their children's inputs
            op = lowered.graph.operations[oi]
            if op.type in ("If", "While") and late.intersection(op.inputs):
                self._vary(op, [lowered.graph.operands[i].shape for i in op.inputs],
                           frozenset(k for k, i in enumerate(op.inputs) if i in late),
                           stack, pending)
        builtin = self.backends[BUILTIN]
        for oi in lowered.ops_of(BUILTIN):
            for index, shapes in builtin.subgraph_calls(lowered.graph.operations[oi],
                                                        lowered.graph):
                self._plan_child((index, tuple(tuple(s) for s in shapes)), stack, pending)
        return lowered

    def _plan_child(self, key: Key, stack: list[Key], pending: dict[Key, LoweredGraph],
                    again: bool = False) -> LoweredGraph:
        """The lowered, shape-inferred graph of child `key` (subgraph, input shapes): the compiled
        child's, the one planned already in this pass (unless `again`: planned anew in its
        place), or a new plan (added to `pending` once its own children are). A child that is
        its own caller (directly or further up) is refused: recursive control flow cannot be
        compiled ahead of time."""
        if key in self.children:
            return self.children[key].lowered
        if key in pending and not again:
            return pending[key]
        index = key[0]
        if any(k[0] == index for k in stack):
            chain = " -> ".join(str(k[0]) for k in stack)
            raise CompileError(f"subgraph {index} calls itself ({chain} -> {index}); recursive "
                               f"control flow is not supported")
        graph = self.model.subgraphs[index]
        stack.append(key)
        try:
            lowered = self._plan(index, dict(zip(graph.inputs, key[1])), frozenset(), stack,
                                 pending, varying=self.varying.get(key, frozenset()))
        finally:
            stack.pop()
        pending[key] = lowered
        return lowered

    def _build_pending(self, pending: dict[Key, LoweredGraph]) -> None:
        """Build the planned children in the order they were planned (post-order: children
        first) and cache each in `children`."""
        for key, lowered in pending.items():
            self.children[key] = self._build(key[0], lowered, frozenset(), key)

    def _build(self, sg: int, lowered: LoweredGraph, io_float: frozenset[int],
               child: Key | None) -> CompiledSubgraph:
        """Contexts, tensors, kernels and executor of a planned subgraph (`child`: its key in
        `children`; None for the subgraph compile_subgraph was asked for). Its control-flow
        kernels find their children in `children`, built before it."""
        depth = len(self._building)
        self._building.append(child)
        try:
            while True:       # each refusal moves its op to a later backend
                try:
                    compiled = self._generate(sg, lowered, io_float)
                    break
                except KernelRefusal as e:
                    lowered = self._replan(sg, lowered, io_float, child, e)
        finally:
            self._building.pop()
        g = lowered.graph
        self.compile_log.append((sg, tuple(tuple(g.operands[i].shape) for i in g.inputs), depth))
        return compiled

    def _replan(self, sg: int, lowered: LoweredGraph, io_float: frozenset[int],
                child: Key | None, refusal: KernelRefusal) -> LoweredGraph:
        """`lowered` planned again with the op a kernel refused in configure on the next backend
        that takes it. The kernel's own error where nothing can take over: a builtin op, or an
        op on the last backend of the list that no other backend refused."""
        graph = self.model.subgraphs[sg]
        oi, bid = refusal.op_index, refusal.backend
        known = lowered.refusals.get(oi, {})
        if (bid == BUILTIN or oi not in graph.operations
                or (not known and self.order.index(bid) == len(self.order) - 1)):
            raise refusal.error
        refusals = {**lowered.refusals, oi: {**known, bid: str(refusal.error)}}
        g = lowered.graph
        pending: dict[Key, LoweredGraph] = {}
        replanned = self._plan(sg, {i: tuple(g.operands[i].shape) for i in g.inputs}, io_float,
                               [], pending, refusals, self.varying.get(child, frozenset()))
        self._build_pending(pending)
        return replanned

    def _generate(self, sg: int, lowered: LoweredGraph, io_float: frozenset[int]
                  ) -> CompiledSubgraph:
        """One BackendContext per backend used (builtin first), their tensors, their kernels
        (builtin's last: Permute needs every registry) and the executor."""
        used = [BUILTIN] + [b for b in self.order if b in set(lowered.op_backend.values())]
        contexts: dict[str, BackendContext] = {}
        try:
            for bid in used:
                data = ContextData(lowered.graph, sg, lowered.ops_of(bid), lowered.exec_order,
                                   lowered.operands_of(bid), self.backend_options(), compiler=self)
                contexts[bid] = self.backends[bid].new_context(data)
            registries = {bid: ctx.gen_tensors() for bid, ctx in contexts.items()}
            for operand, owner, user in lowered.shared:     # host crossings: owner's tensor
                registries[user].set_migrant_tensor(operand,
                                                    registries[owner].get_itensor(operand))
            builtin = contexts[BUILTIN]
            builtin.other_registries = [r for b, r in registries.items() if b != BUILTIN]
            kernels = {}
            for bid in used[1:] + [BUILTIN]:       # builtin last: Permute needs every registry
                kernels.update(contexts[bid].gen_kernels())
        except BaseException:         # a refused kernel is compiled again elsewhere: free these
            for ctx in contexts.values():
                ctx.release()
            raise
        steps = [Step(oi, lowered.op_backend[oi], kernels[oi]) for oi in lowered.exec_order]
        reg = registries[BUILTIN]
        inputs = [reg.get_itensor(i) for i in lowered.graph.inputs]
        executor = executor_class(self.config.executor)(steps, sg, self.tracer, inputs,
                                                   segments=self.config.native_segments)
        return CompiledSubgraph(sg, lowered, contexts, executor, inputs,
                                [reg.get_itensor(o) for o in lowered.graph.outputs], io_float)

    def _control_flow_shapes(self, op, shapes: list, stack: list[Key],
                             pending: dict[Key, LoweredGraph]) -> list[tuple[int, ...]]:
        """Output shapes of If/While from their children's planned (or compiled) graphs, planned
        here first when new; Dynamic when a branch's or the loop body's output shapes are not
        fixed (or not the same on every path)."""
        p = op.params

        def outs(index: int, lowered: LoweredGraph) -> list[tuple[int, ...]]:
            g = lowered.graph
            if any(g.operands[o].dynamic for o in g.outputs):
                raise Dynamic(f"subgraph {index} has outputs shaped at run time")
            return [tuple(g.operands[o].shape) for o in g.outputs]

        def child(index: int, child_shapes: list) -> LoweredGraph:
            return self._plan_child((index, tuple(tuple(s) for s in child_shapes)), stack,
                                    pending)

        if op.type == "If":
            branches = [outs(i, child(i, shapes[1:]))
                        for i in (p.then_subgraph_index, p.else_subgraph_index)]
            if branches[0] != branches[1]:
                raise Dynamic("the branches give different shapes")
            return branches[0]
        varying = self._vary(op, shapes, frozenset(), stack, pending)
        body = child(p.body_subgraph_index, shapes).graph
        if varying or len(body.outputs) != len(shapes):
            raise Dynamic("the loop body changes the shapes of its variables")
        return [tuple(s) for s in shapes]

    def _vary(self, op, shapes: list, positions: frozenset[int], stack: list[Key],
              pending: dict[Key, LoweredGraph]) -> frozenset[int]:
        """Plan the children of If/While `op` (input `shapes`) with its inputs at `positions`
        shaped at run time (`varying`). A While adds the loop variables its body gives back
        shaped otherwise than they came in, or derived from a varying one, until none is left
        (their shapes change between iterations); returns the While's varying positions."""
        p = op.params
        if op.type == "If":
            inner = frozenset(k - 1 for k in positions if k > 0)
            for index in (p.then_subgraph_index, p.else_subgraph_index):
                self._vary_child((index, tuple(tuple(s) for s in shapes[1:])), inner, stack,
                                 pending)
            return inner
        key = tuple(tuple(s) for s in shapes)
        while True:
            self._vary_child((p.cond_subgraph_index, key), positions, stack, pending)
            body = self._vary_child((p.body_subgraph_index, key), positions, stack, pending)
            g = body.graph
            late = run_time_shaped(body, [i for k, i in enumerate(g.inputs) if k in positions])
            grown = positions | {k for k, (o, s) in enumerate(zip(g.outputs, key)) if o in late
                                 or g.operands[o].dynamic or tuple(g.operands[o].shape) != s}
            if grown == positions:
                return positions
            positions = frozenset(grown)

    def _vary_child(self, key: Key, positions: frozenset[int], stack: list[Key],
                    pending: dict[Key, LoweredGraph]) -> LoweredGraph:
        """Child `key` planned with its inputs at `positions` (and those marked before) varying:
        planned again where that adds any."""
        known = self.varying.get(key, frozenset())
        if positions <= known:
            return self._plan_child(key, stack, pending)
        self.varying[key] = known | positions
        return self._plan_child(key, stack, pending, again=True)

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
