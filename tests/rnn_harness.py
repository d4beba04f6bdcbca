"""The shared harness of the recurrent-op tests: their state inputs are variable tensors that carry
over from one run to the next, so a test runs one session several times, compares every run
with consecutive invocations of one interpreter, then resets the state and checks that the first
answer comes back."""
from __future__ import annotations

from typing import Callable

import numpy as np

from onert_py.model_builder import ModelBuilder
from op_harness import open_session

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
    """The class names of a session's kernels (found by walking its executor's attributes)."""
    from onert_py.core.backend import Kernel
    seen, found, todo = set(), set(), [session]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, np.ndarray, int, float)):
            continue
        seen.add(id(obj))
        if isinstance(obj, Kernel):
            found.add(type(obj).__name__)
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
    again does. `picked(kernel names)` must hold
    for the session's kernels when given; with `distinct`, the expected answers of runs 1 and 2
    must differ (else the runs do not tell state apart). Returns the expected outputs."""
    if expected is None:
        expected = tflite_runs(model, runs)
    session = open_session(model, backends)
    if picked is not None:
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


Slots = Callable[..., list]     # (rng, builder, name prefix, units, n_input) -> [w, r, bias]


def rnn_model(rng, slots: Slots, act: str, **options) -> bytes:
    """RNN over a (2, 3) input with 5 units and a variable state; weights from `slots`."""
    mb = ModelBuilder()
    x = mb.add_input("x", (2, 3))
    h = mb.add_tensor("h", (2, 5), is_variable=True)
    y = mb.add_tensor("y", (2, 5))
    mb.add_op("RNN", [x, *slots(rng, mb, "", 5, 3), h], [y], fused_activation_function=act,
              **options)
    mb.add_output(y)
    return mb.build()


def seq_rnn_model(rng, slots: Slots, shape, time_major: bool, act: str, **options) -> bytes:
    """UNIDIRECTIONAL_SEQUENCE_RNN over `shape` with 5 units and a variable state."""
    batch = shape[1] if time_major else shape[0]
    mb = ModelBuilder()
    x = mb.add_input("x", shape)
    h = mb.add_tensor("h", (batch, 5), is_variable=True)
    y = mb.add_tensor("y", tuple(shape[:2]) + (5,))
    mb.add_op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, *slots(rng, mb, "", 5, shape[2]), h], [y],
              time_major=time_major, fused_activation_function=act, **options)
    mb.add_output(y)
    return mb.build()
