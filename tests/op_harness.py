"""The shared op-test helper: run one model on onert_py and on the TFLite interpreter and
compare every output. Op tests parametrize over `BACKENDS`; a backend that cannot load on this
machine is skipped with the reason the runtime gives."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple, Sequence

import numpy as np
import pytest

import onert_py
from onert_py.errors import BackendNotAvailableError
from onert_py.model_builder import single_op_model

from oracle import tflite_run

# Every backend the op suite runs on; one that cannot load here is skipped, except those that
# load on every machine (pure NumPy): a failure to load them fails the test. A backend other
# than cpu runs with cpu behind it (`[backend, "cpu"]`, as users run it); a test whose ops it
# runs none of is skipped with the backend's reason, so a pass always means it computed.
BACKENDS: list[str] = ["cpu", "acl_neon", "acl_cl"]
ALWAYS_AVAILABLE = frozenset({"cpu"})

# Tolerances by kind of computation (integer and bool outputs are always compared exactly).
ELEMENTWISE = {"rtol": 1e-5, "atol": 1e-6}    # one rounding per element, data movement
ACCUMULATE = {"rtol": 1e-4, "atol": 1e-5}     # long sums, transcendental functions


@lru_cache(maxsize=None)
def _backend_problem(name: str) -> str | None:
    """Why backend `name` cannot load on this machine, or None when it can."""
    model = single_op_model("ADD", [("a", (1, 4), "float32"), ("b", (1, 4), "float32")],
                            [("y", (1, 4), "float32")])
    try:
        onert_py.Session(model, backends=name)
    except BackendNotAvailableError as e:
        return str(e)
    except onert_py.CompileError:
        return None   # it loaded; refusing this one op is a matter for the op tests
    return None


def backend_or_skip(name: str) -> str:
    """`name` if that backend loads here; otherwise skip the calling test with the reason."""
    problem = _backend_problem(name)
    if problem is not None:
        if name in ALWAYS_AVAILABLE:       # a broken cpu backend must fail the suite, not skip it
            pytest.fail(f"backend {name} failed to load: {problem}")
        pytest.skip(f"backend {name} is not available: {problem}")
    return name


def with_fallback(backends: str | Sequence[str]) -> str | list[str]:
    """A single backend other than cpu gets cpu behind it."""
    if isinstance(backends, str) and backends != "cpu" and ";" not in backends:
        return [backends, "cpu"]
    return backends


def _require_ran_on(session: onert_py.Session, backends: str | Sequence[str]) -> None:
    """Skip the test when a single non-cpu backend under test was given none of its ops."""
    if not isinstance(backends, str) or backends == "cpu" or ";" in backends:
        return
    placement = session.placement()
    if backends not in placement.used_backends:
        why = sorted({op.refusals[backends] for op in placement.ops if backends in op.refusals})
        if backends in placement.not_loaded:
            why.append(placement.not_loaded[backends])
        pytest.skip(f"{backends} runs none of this model's ops: {'; '.join(why) or 'not chosen'}")


class Internals(NamedTuple):
    """A session's private objects (None each once it is closed): `compiler`, the
    core.compiler.Compiler (backends, assignment, compiled children); `compiled`, the
    CompiledSubgraph of the primary subgraph (lowered graph, backend contexts with their tensor
    registries and memory plans, executor, kernels); `model`, the core.ir.Model as loaded
    (model.primary: the primary subgraph's graph)."""
    compiler: Any
    compiled: Any
    model: Any


def session_internals(session: onert_py.Session) -> Internals:
    """The one place where tests read Session's private attributes: for tests of what
    Session.placement() does not expose (the kernel objects picked, memory plans, executor
    worker threads, what close() releases). Op placement: use session.placement()."""
    return Internals(session._compiler, session._compiled, session._model)


def kernels(session: onert_py.Session) -> list:
    """The kernel objects of the session's primary subgraph, in execution order."""
    return [step.kernel for step in session_internals(session).compiled.executor.steps]


def open_session(model: bytes, backends: str | Sequence[str] = "cpu",
                 **kwargs: Any) -> onert_py.Session:
    """A session for an op test: a single non-cpu backend gets cpu behind it, and the test is
    skipped when that backend runs none of the model's ops (its reasons in the message)."""
    session = onert_py.Session(model, backends=with_fallback(backends), **kwargs)
    _require_ran_on(session, backends)
    return session


def run_onert(model: bytes, inputs: Sequence[np.ndarray],
              backends: str | Sequence[str] = "cpu", warmup: bool = True) -> list[np.ndarray]:
    """The outputs of `model` run by onert_py on `backends`. Inputs whose shape differs from
    the model's resize it first (set_input_shape). With `warmup`, the session first runs on
    other data (each input's values rolled by one), so state left over from a run would show.
    Where kernels run as native steps, the same runs with every kernel run one by one through
    Python (config native_segments: false) must give the same bits (issue 18)."""
    with open_session(model, backends) as session:
        got = _runs(session, inputs, warmup)
        native = any(s.kernel.native_step is not None
                     for s in session_internals(session).compiled.executor.steps)
    if native:
        with onert_py.Session(model, backends=with_fallback(backends),
                              config={"native_segments": False}) as step:
            want = _runs(step, inputs, warmup)
        for k, (a, b) in enumerate(zip(got, want)):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
                a, b, equal_nan=a.dtype.kind in "fc"), \
                f"output {k}: native segments and step-by-step runs differ on {backends}"
    return got


def _runs(session: onert_py.Session, inputs: Sequence[np.ndarray], warmup: bool) -> list:
    for pos, (info, x) in enumerate(zip(session.inputs, inputs)):
        if tuple(info.shape) != tuple(np.shape(x)):
            session.set_input_shape(pos, np.shape(x))
    if warmup:
        session.run([np.roll(np.asarray(x), 1) for x in inputs])
    return [np.array(o, copy=True) for o in session.run(list(inputs))]


def check_op(model: bytes, inputs: Sequence[np.ndarray], backends: str | Sequence[str] = "cpu",
             rtol: float = 1e-5, atol: float = 1e-6,
             reference: bytes | None = None) -> list[np.ndarray]:
    """Run `model` on onert_py and on the TFLite interpreter; assert equal output shapes and
    dtypes, exactly equal integer/bool values and float values within rtol/atol. `reference`,
    when given, is an equivalent model the interpreter runs instead (for a form of an op that
    the interpreter refuses, such as a convolution without bias). Returns onert_py's outputs."""
    expected = tflite_run(model if reference is None else reference, list(inputs))
    got = run_onert(model, inputs, backends)
    assert_outputs(got, expected, rtol, atol, f"on {backends}")
    return got


def check_runs(model: bytes, runs: Sequence[Sequence[np.ndarray]], backend: str = "cpu",
               rtol: float = 1e-5, atol: float = 1e-6,
               expected: dict[int, Sequence[np.ndarray]] | None = None
               ) -> list[list[np.ndarray]]:
    """Run one session on each input list in turn (resizing inputs whose shape changes) and
    compare every run's outputs with the interpreter's: shapes, dtypes and values.
    `expected[n]` replaces the interpreter for run n: it cannot hand back an empty output
    (get_tensor says "Invalid tensor size"), so runs with one give theirs here."""
    results = []
    with open_session(model, backend) as sess:
        for n, inputs in enumerate(runs):
            for pos, (info, x) in enumerate(zip(sess.inputs, inputs)):
                if tuple(info.shape) != np.shape(x):
                    sess.set_input_shape(pos, np.shape(x))
            got = [np.array(o, copy=True) for o in sess.run(list(inputs))]
            if expected and n in expected:
                want = [np.asarray(e) for e in expected[n]]
            else:
                want = tflite_run(model, list(inputs))
            assert_outputs(got, want, rtol, atol, f"of run {n}")
            results.append(got)
    return results


def assert_outputs(got: Sequence[np.ndarray], expected: Sequence[np.ndarray], rtol: float,
                   atol: float, label: str = "") -> None:
    """Same count, shapes and dtypes; integer/bool values exactly, floats within rtol/atol."""
    assert len(got) == len(expected), f"{len(got)} outputs, the interpreter gives {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        what = f"output {k} {label}".strip()
        assert g.shape == e.shape, f"{what}: shape {g.shape}, the interpreter gives {e.shape}"
        assert g.dtype == e.dtype, f"{what}: dtype {g.dtype}, the interpreter gives {e.dtype}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(g, e, err_msg=what)


# ---- random inputs ------------------------------------------------------------------------------
def rand(rng: np.random.Generator, shape: Sequence[int], dtype: str = "float32",
         low: float = -2.0, high: float = 2.0) -> np.ndarray:
    """Uniform values in [low, high) (integers: [low, high)) of `dtype`."""
    shape = tuple(shape)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low), int(high), size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    return rng.uniform(low, high, size=shape).astype(dtype)
