"""Session: load a model, compile it for the chosen backends, run it."""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from . import config as config_mod
from .core.backend.state import reset_variables
from .core.compiler import CompiledSubgraph, Compiler
from .core.loader import load_model
from .errors import CompileError, InputError, OnertPyError, SessionClosedError
from .session_io import as_input_array, check_outputs, input_list
from .tensorinfo import TensorInfo

if TYPE_CHECKING:
    from .placement import Placement


class Session:
    """A compiled model, ready to run.

    >>> sess = Session("model.tflite", backends="cpu")
    >>> outputs = sess.run([x])
    """

    def __init__(self, model: str | os.PathLike | bytes, backends: str | Sequence[str] | None = None,
                 config: str | os.PathLike | Mapping[str, Any] | None = None, *,
                 float_io: bool = False) -> None:
        """`float_io=True`: the quantized inputs and outputs of a quantized model take and give
        float32 arrays (quantized and dequantized by builtin Permutes with the model's scale and
        zero point); see also set_input_type / set_output_type."""
        self._lock = threading.RLock()   # serialises run / resize / close across threads
        self._compiler: Compiler | None = None
        self._closed_info: tuple | None = None
        t0 = time.perf_counter()
        self._model = load_model(model)
        t1 = time.perf_counter()
        try:
            with _compile_errors():
                self.config = config_mod.resolve(config, package=self._model.package_config,
                                                 backends=backends)
                if not self.config.use_mmaped_data and self._model.path is not None:
                    mapped, self._model = self._model, load_model(model, use_mmap=False)
                    mapped.close()
                self._compiler = Compiler(self._model, self.config)
                self._graph = self._model.primary
                self._input_shapes = {i: tuple(self._graph.operands[i].shape)
                                      for i in self._graph.inputs}
                io_float = frozenset(i for i in (*self._graph.inputs, *self._graph.outputs)
                                     if float_io and self._graph.operands[i].is_quantized)
                self._compiled: CompiledSubgraph = self._compiler.compile_subgraph(
                    0, self._input_shapes, io_float=io_float)
        except BaseException:
            if self._compiler is not None:
                self._compiler.release()
                self._compiler = None
            self._model.close()
            raise
        self._closed_tracer = None
        self._fast = None    # (compiled subgraph, [(dtype, shape) per input]) of run()'s fast path
        # seconds spent loading the model file, and compiling it (config included)
        self.timings = {"load": t1 - t0, "compile": time.perf_counter() - t1}
        self._blas_want = self._blas_threads_wanted()
        self.graph_dot = None            # a dot.DotDump when config graph_dot_dump is set
        if self.config.graph_dot_dump:
            from .dot import write_dot
            self.graph_dot = write_dot(self._compiled.lowered, self.config.graph_dot_dump,
                                       os.path.basename(self._model.path or "model"))

    # ---- model description -------------------------------------------------------------
    def _open(self) -> Compiler:
        """The compiler of an open session; a clear error once the session is closed."""
        if self._compiler is None:
            raise SessionClosedError("this session is closed; create a new Session to run again")
        return self._compiler

    def _info(self, index: int, lowered: int) -> TensorInfo:
        """The model's tensor `index` as the user sees it: shape and dtype from the compiled
        graph (float32 where the session converts), quantization from the model."""
        o = self._graph.operands[index]
        lo = self._compiled.lowered.graph.operands[lowered]
        return TensorInfo(o.name, tuple(lo.shape), lo.dtype,
                          o.quant.as_dict() if o.quant else None)

    @property
    def inputs(self) -> list[TensorInfo]:
        """Name, shape, dtype and quantization (scale, zero point; per channel with
        quantized_dimension) of each input. Still answers after close()."""
        with self._lock:
            if self._compiler is None and self._closed_info is not None:
                return list(self._closed_info[0])
            self._open()
            return [self._info(i, i) for i in self._graph.inputs]

    @property
    def outputs(self) -> list[TensorInfo]:
        with self._lock:
            if self._compiler is None and self._closed_info is not None:
                return list(self._closed_info[1])
            self._open()
            lg = self._compiled.lowered.graph
            return [self._info(o, lo) for o, lo in zip(self._graph.outputs, lg.outputs)]

    def set_input_type(self, key: int | str, dtype: Any) -> None:
        """Pass input `key` as float32 (quantized by the session with the model's parameters) or
        as the model's own dtype again. onert's nnfw_set_input_type."""
        with self._lock:
            self._open()
            self._set_io_type(self._graph.inputs[self._input_position(key)], dtype, "input")

    def set_output_type(self, key: int, dtype: Any) -> None:
        """Receive output `key` as float32 (dequantized) or as the model's own dtype."""
        with self._lock:
            self._open()
            if not 0 <= key < len(self._graph.outputs):
                raise InputError(f"output index {key} out of range; the model has "
                                 f"{len(self._graph.outputs)} outputs")
            self._set_io_type(self._graph.outputs[key], dtype, "output")

    def _set_io_type(self, index: int, dtype: Any, what: str) -> None:
        o = self._graph.operands[index]
        try:
            dtype = np.dtype(dtype)
        except TypeError as e:
            raise InputError(f"{what} {o.name!r}: {dtype!r} is not a dtype") from e
        io_float = self._compiled.io_float      # what the primary subgraph is compiled with
        if dtype == o.dtype:
            want = io_float - {index}
        elif dtype == np.float32 and o.is_quantized:
            want = io_float | {index}
        else:
            raise InputError(f"{what} {o.name!r} is {o.dtype}"
                             + (" (quantized)" if o.quant else "")
                             + f"; it can be given as {o.dtype}"
                             + (" or float32" if o.is_quantized else "")
                             + f", not {dtype}")
        if want == io_float:
            return
        compiled = self._compiler.compile_subgraph(0, self._input_shapes, io_float=want)
        self._compiled.release()
        self._compiled = compiled

    @property
    def backends(self) -> list[str]:
        """The backends that loaded, in preference order."""
        return list(self._open().order)

    def explain(self) -> str:
        """Per op: the backend it runs on and why; the Permutes inserted."""
        from .explain import explain as explain_text     # not imported until asked: cold start
        with self._lock:
            return explain_text(self._open(), self._compiled)

    def placement(self) -> Placement:
        """Which backend runs each op (primary and compiled child subgraphs) and the Permutes
        inserted, as a frozen Placement (onert_py.placement); explain() says it in words."""
        from .placement import placement_of
        with self._lock:
            return placement_of(self._open(), self._compiled)

    # ---- shapes ------------------------------------------------------------------------
    def _input_position(self, key: int | str) -> int:
        names = [self._graph.operands[i].name for i in self._graph.inputs]
        if isinstance(key, str):
            if key not in names:
                raise InputError(f"no input named {key!r}; inputs: {names}")
            return names.index(key)
        if not 0 <= key < len(names):
            raise InputError(f"input index {key} out of range; the model has {len(names)} inputs")
        return key

    def set_input_shape(self, key: int | str, shape: Sequence[int]) -> None:
        """Resize one input (e.g. a new batch size); shapes are inferred and memory replanned."""
        with self._lock:
            self._open()
            self._resize(self._input_position(key), shape)

    def _resize(self, pos: int, shape: Sequence[int]) -> None:
        shape = tuple(int(d) for d in shape)
        index = self._graph.inputs[pos]
        declared = self._graph.operands[index]
        if len(shape) != len(declared.shape) or any(d < 0 for d in shape):
            raise InputError(f"input {pos} ({declared.name!r}): shape {shape} must have rank "
                             f"{len(declared.shape)} and no negative dimension")
        if self._input_shapes[index] == shape:
            return
        new_shapes = dict(self._input_shapes)
        new_shapes[index] = shape
        with _compile_errors():
            compiled = self._compiler.compile_subgraph(0, new_shapes,
                                                       io_float=self._compiled.io_float)
        self._compiled.release()
        self._compiled, self._input_shapes = compiled, new_shapes

    # ---- running -----------------------------------------------------------------------
    def _bind_inputs(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]) -> list:
        """The user's inputs as arrays of the model's dtypes, in model input order (resizing
        the session where the model's -1 dims allow). Rules: docs/robustness.md."""
        g = self._graph
        names = [g.operands[i].name for i in g.inputs]
        arrays = input_list(inputs, names)
        out, resize = [], {}
        lg = self._compiled.lowered.graph
        for pos, (index, a) in enumerate(zip(g.inputs, arrays)):
            o = lg.operands[index]
            a = as_input_array(a, o.dtype, f"input {pos} ({o.name!r})")
            expected = self._input_shapes[index]
            if tuple(a.shape) != expected:
                if not _fits_signature(a.shape, o.shape_signature):
                    free = "" if o.shape_signature is None else (
                        f" (the model leaves only the -1 dims of {tuple(o.shape_signature)} free)")
                    raise InputError(f"input {pos} ({o.name!r}): expected shape {expected}, got "
                                     f"{tuple(a.shape)}{free}; call set_input_shape({pos}, "
                                     f"{tuple(a.shape)}) to resize")
                resize[pos] = tuple(a.shape)
            out.append(a)
        for pos, shape in resize.items():     # -1 dims of the model: taken from the arrays
            self._resize(pos, shape)
        return out

    def run(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
            outputs: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
        """Run the model; returns its outputs in model output order. Thread-safe: calls from
        several threads are serialised (one run at a time per session).

        An input that is a C-contiguous ndarray of the model's dtype and shape is read in
        place (never written, never kept after the call); anything else is converted first.
        `outputs`: preallocated arrays, one per model output (C-contiguous, writeable, the
        output's dtype and shape), written in place and returned (onert's set_output);
        without it, the outputs are fresh arrays."""
        with self._lock:
            if self._compiler is None:
                self._open()
            compiled = self._compiled
            fast = self._fast
            if fast is None or fast[0] is not compiled:
                fast = self._fast = (compiled, [(t.dtype, t.planned_shape) for t in
                                                compiled.inputs])
            specs = fast[1]
            if (type(inputs) is list or type(inputs) is tuple) and len(inputs) == len(specs) \
                    and all(type(a) is np.ndarray and a.dtype == dt and a.shape == shape
                            and a.flags.c_contiguous for a, (dt, shape) in zip(inputs, specs)):
                arrays = inputs
                io = compiled.executor.fast_io(compiled.outputs)
                if io is not None and self._blas_ready():
                    return self._run_native(compiled, io, list(inputs), outputs)
            else:
                arrays = [a if a.flags.c_contiguous else np.ascontiguousarray(a)
                          for a in self._bind_inputs(inputs)]
                compiled = self._compiled            # -1 dims may have resized the session
            self._apply_threads()
            outs = compiled.outputs
            if outputs is not None:
                check_outputs(outputs, self._compiled.outputs, arrays)
            ins = compiled.inputs
            for t, a in zip(ins, arrays):
                t.bind_user(a)
            try:
                if outputs is None:
                    for t in outs:    # dynamic outputs are sized by their producer
                        t.set_buffer(None if t.is_dynamic else np.empty(t.planned_shape,
                                                                        t.dtype))
                else:
                    for t, a in zip(outs, outputs):
                        t.set_buffer(None if t.is_dynamic else a)
                executor = compiled.executor
                if executor.all_native:
                    executor.execute()
                else:
                    with np.errstate(all="ignore"):    # inf/nan propagate as in TFLite
                        executor.execute()
                result = [t.buffer for t in outs]
            finally:
                for t in ins:
                    t.set_buffer(None)
                for t in outs:
                    t.set_buffer(None)
            if outputs is not None:
                for k, (t, a, r) in enumerate(zip(outs, outputs, result)):
                    if r is not a:                  # a dynamic output: copied when it fits
                        if r.shape != a.shape:
                            raise InputError(f"output {k} ({t.name!r}) came out with shape "
                                             f"{r.shape}; the array given has {a.shape}")
                        np.copyto(a, r)
                result = list(outputs)
        return result

    def _run_native(self, compiled, io, arrays: list, outputs) -> list[np.ndarray]:
        """run() of a subgraph that is one native segment: one native call binds the arrays,
        runs every op with the GIL released and unbinds them."""
        outs = compiled.outputs
        if outputs is None:
            result = [np.empty(t.planned_shape, t.dtype) for t in outs]
        else:
            check_outputs(outputs, self._compiled.outputs, arrays)
            result = list(outputs)
        segment, in_slots, out_slots = io
        failed = segment.run_io(in_slots, arrays, out_slots, result)
        if failed >= 0:
            ex = compiled.executor
            raise ex.failure(ex._units.steps[0][failed], RuntimeError(segment.error))
        return result

    def _blas_threads_wanted(self):
        """BLAS threads for this session's runs: config num_threads (None: the library's
        default), but 1 when a backend with its own thread pool (acl_neon's) shares the
        session with other backends: their BLAS calls run between its parallel regions, and
        two pools spinning on the same cores made mixed models several times slower.
        `_NO_BLAS` when every kernel compiled is a native step (no Python kernel, hence no
        NumPy BLAS call): the process's setting is left alone, and threadpoolctl (a few ms of
        a cold start: it scans the loaded libraries) is not imported."""
        compiler = self._compiler
        executors = [self._compiled.executor] + [c.executor for c in compiler.children.values()]
        if all(s.kernel.native_step is not None for ex in executors for s in ex.static_order()):
            return _NO_BLAS
        used = {a.backend for a in compiler.assignment.values()} - {"builtin"}
        own = [b for b in used if getattr(compiler.backends[b].config, "own_thread_pool", False)]
        if own and len(used) > len(own):
            return 1
        return self.config.num_threads

    def _blas_ready(self) -> bool:
        """Whether the process's BLAS thread count is what this session's runs want."""
        want = self._blas_want
        return want is _NO_BLAS or _blas_threads.get("applied") == want

    def _apply_threads(self) -> None:
        """Set the process's BLAS thread count for this session (a process-wide setting: done
        only when it differs from what the last run set)."""
        if self._blas_ready():
            return
        want = self._blas_want
        from threadpoolctl import threadpool_info, threadpool_limits
        if "default" not in _blas_threads:
            _blas_threads["default"] = max((p["num_threads"] for p in threadpool_info()
                                            if p["user_api"] == "blas"), default=1)
        threadpool_limits(limits=_blas_threads["default"] if want is None else want,
                          user_api="blas")
        _blas_threads["applied"] = want

    def reset_state(self) -> None:
        """Reset every variable tensor (RNN/LSTM/SVDF state) of every compiled subgraph to its
        initial value (the model's data, or zeros), as TFLite's ResetVariableTensors, and the
        resource variables: they are unassigned again and the model's CALL_ONCE runs its
        initialisation again on the next run (a streaming model starts a new stream)."""
        with self._lock:
            compiler = self._open()
            reset_variables([self._compiled, *compiler.children.values()])
            variables = compiler.state.get("variables")
            if variables is not None:          # resource variables: unassigned again
                variables.reset()
            for flag in compiler.state.get("call_once_done", {}).values():
                flag[0] = 0                    # CALL_ONCE initialises them again

    def trace_summary(self) -> str:
        """Where the time went, from the trace (config `tracing`): markdown tables of op
        self-time per op type and per backend (count, total, mean, share). Empty before a run."""
        tracer = self._compiler.tracer if self._compiler is not None else self._closed_tracer
        if tracer is None:
            raise OnertPyError("tracing is off; create the session with config tracing: "
                               "<trace.json> (or TRACING_MODE=1) to get a summary")
        return tracer.summary() if tracer.stats else ""

    @property
    def closed(self) -> bool:
        return self._compiler is None

    def close(self) -> None:
        """Release every backend context (primary and control-flow children), their buffers,
        the executors' worker threads, this session's hold on each backend (the last session
        out calls its onert_backend_destroy) and the model file mapping. Idempotent; waits for
        a run in progress in another thread. Afterwards run() and the other methods raise
        SessionClosedError; inputs, outputs and trace_summary() still answer."""
        lock = getattr(self, "_lock", None)
        if lock is None or getattr(self, "_compiler", None) is None:
            return
        with lock:
            if self._compiler is None:
                return
            compiler, compiled, model = self._compiler, self._compiled, self._model
            self._closed_info = ([self._info(i, i) for i in self._graph.inputs],
                                 [self._info(o, lo) for o, lo in zip(
                                     self._graph.outputs, compiled.lowered.graph.outputs)])
            self._closed_repr = (model.path or "<bytes>", list(compiler.order))
            self._compiler = self._compiled = self._graph = self._model = None
            self._fast = None
            tracer = self._closed_tracer = compiler.tracer
            try:
                if tracer is not None and tracer.events:
                    tracer.write()
            finally:
                try:
                    compiled.release()
                finally:
                    compiler.release()
                    del compiler, compiled
                    model.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._compiler is None:
            path, backends = getattr(self, "_closed_repr", ("?", []))
            return f"Session({path}, backends={backends}, closed)"
        return (f"Session({self._model.path or '<bytes>'}, backends={self.backends}, "
                f"inputs={len(self._graph.inputs)}, outputs={len(self._graph.outputs)})")


_NO_BLAS = "no BLAS call"       # Session._blas_want when every kernel is native
_blas_threads: dict[str, int | None] = {}    # applied: last BLAS limit set; default


def _fits_signature(shape: tuple[int, ...], signature: tuple[int, ...] | None) -> bool:
    """Whether `shape` is one the model's shape_signature allows (-1: any size)."""
    return signature is not None and len(signature) == len(shape) and any(
        d == -1 for d in signature) and all(d == -1 or d == s for d, s in zip(signature, shape))


@contextmanager
def _compile_errors():
    """A non-onert_py exception out of compilation (a kernel's configure() or a pass that did not
    validate a malformed model) still surfaces as a CompileError, with the cause chained."""
    try:
        yield
    except OnertPyError:
        raise
    except Exception as e:
        raise CompileError(f"compiling the model failed: {type(e).__name__}: {e}") from e


__all__ = ["Session", "TensorInfo", "OnertPyError", "CompileError", "SessionClosedError"]
