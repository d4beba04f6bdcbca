"""The shared harness of the recurrent-op tests: their state inputs are variable tensors that carry
over from one run to the next, so a test runs one session several times, compares every run
with consecutive invocations of one interpreter, then resets the state and checks that the first
answer comes back."""
from __future__ import annotations

from typing import Callable

import numpy as np

from op_harness import open_session, session_internals
from quant_harness import assert_close_int

Compare = Callable[[list, list, str], None]     # (got outputs, expected outputs, label)


def tflite_runs(model: bytes, runs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """The outputs of consecutive invocations of one interpreter (state carried over)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    interp = Interpreter(model_content=model, num_threads=1, experimental_op_resolver_type=(
        OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    interp.allocate_tensors()
    results = []
    for xs in runs:
        for d, x in zip(interp.get_input_details(), xs):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        results.append([np.array(interp.get_tensor(d["index"]), copy=True)
                        for d in interp.get_output_details()])
    return results


def kernel_names(session) -> set[str]:
    """`<backend>.<class name>` of a session's kernels, control-flow children's included (found
    by walking the attributes of its compiler and compiled subgraph). Kernel classes have the
    same names in every backend (LstmLayer), so the backend tells them apart."""
    from onert_py.core.backend import Kernel
    seen, found, todo = set(), set(), [session_internals(session)]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, np.ndarray, int, float)):
            continue
        seen.add(id(obj))
        if isinstance(obj, Kernel):
            found.add(f"{getattr(type(obj), 'backend_id', '?')}.{type(obj).__name__}")
        elif isinstance(obj, dict):
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set)):
            todo.extend(obj)
        elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("onert_py"):
            todo.extend(vars(obj).values())
    return found


def check_stateful(model: bytes, runs: list[list[np.ndarray]], compare: Compare,
                   expected: list[list[np.ndarray]] | None = None,
                   picked: Callable[[set[str]], bool] | None = None,
                   distinct: bool = True, backends="cpu") -> list[list[np.ndarray]]:
    """Runs 1..n in one session on `backends` (op_harness.open_session: a single non-cpu
    backend gets cpu behind it, skipped when it runs none of the ops) match `expected`
    (default: the interpreter's consecutive invocations) by `compare`; after a reset, run 1
    again does. `picked(kernel names)`, when given, must hold for the session's kernels where cpu
    runs the model (kernel_names: "cpu.<class>" for cpu's kernels); with `distinct`, the
    expected answers of runs 1 and 2 must differ (else the runs do not tell state apart).
    Returns the expected outputs."""
    if expected is None:
        expected = tflite_runs(model, runs)
    session = open_session(model, backends)
    if picked is not None and "cpu" in session.placement().used_backends:
        names = kernel_names(session)
        assert picked(names), f"the expected kernel was not picked: {sorted(names)}"
    for k, (xs, exp) in enumerate(zip(runs, expected)):
        compare([np.array(o, copy=True) for o in session.run(xs)], exp, f"run {k}")
    if distinct and len(runs) > 1:
        assert not all(np.allclose(a, b) for a, b in zip(expected[0], expected[1])), \
            "the test runs do not tell state apart"
    session.reset_state()
    compare([np.array(o, copy=True) for o in session.run(runs[0])], expected[0], "after reset")
    return expected


def seq_runs(rng, shape, n: int, aux_shape=None) -> list[list[np.ndarray]]:
    """`n` runs of uniform [-1, 1) float inputs of `shape` (and an aux input when given)."""
    runs = []
    for _ in range(n):
        xs = [rng.uniform(-1, 1, shape).astype(np.float32)]
        if aux_shape is not None:
            xs.append(rng.uniform(-1, 1, aux_shape).astype(np.float32))
        runs.append(xs)
    return runs


def int8_runs(rng, shape, n: int = 3) -> list[list[np.ndarray]]:
    """`n` runs of full-range int8 inputs of `shape`."""
    return [[rng.integers(-128, 128, shape).astype(np.int8)] for _ in range(n)]


def check_int_stateful(model: bytes, runs: list[list[np.ndarray]], kernel: str,
                       varied: bool = True, backends="cpu") -> list[list[np.ndarray]]:
    """check_stateful for integer models: every output bit-exact, the cpu kernel class `kernel`
    picked (where cpu runs it); with `varied`, the expected outputs must not be saturated or
    constant."""
    def exact(got: list, expected: list, label: str) -> None:
        for g, e in zip(got, expected):
            assert_close_int(g, e, 0, label)
    expected = check_stateful(model, runs, exact, picked=lambda names: f"cpu.{kernel}" in names,
                              distinct=False, backends=backends)
    if varied:
        outs = np.concatenate([e[0].ravel() for e in expected]).astype(np.int64)
        assert np.unique(outs).size > 4, "the test outputs are saturated or constant"
    return expected
