"""Session creation time and per-operation overhead (bench.py --session-time and
--per-op-overhead)."""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Sequence

import numpy as np

from .common import Unavailable, make_inputs, short_reason
from .runtimes import ONERT, create_runner, create_runners
from .timing import RoundPolicy, measure_interleaved

#: ``probe(key, model) -> reason or None``: lets callers veto crash-prone runtimes.
ProbeFn = Callable[[str, str], "str | None"]


def session_times(models: Sequence[str], keys: Sequence[str], threads: int,
                  repeats: int = 5, probe: ProbeFn | None = None, max_s: float = 20.0,
                  progress: bool = False) -> dict[str, dict[str, Any]]:
    """Median over ``repeats`` of session creation (load + compile) per model and runtime,
    plus the latency of the first run after creation (lazy work shows up there).

    For LiteRT creation is ``Interpreter(...)`` + ``allocate_tensors()``; for ``onert``
    it is the session constructor (it prepares on the first run). Repeats stop early
    (``n`` < ``repeats``) once one model/runtime pair has taken ``max_s`` seconds."""
    out: dict[str, dict[str, Any]] = {}
    for model in models:
        name = os.path.basename(model)
        if progress:
            print(f"  session time: {name}", file=sys.stderr, flush=True)
        row: dict[str, Any] = {}
        for key in keys:
            reason = probe(key, model) if probe else None
            if reason:
                row[key] = {"error": reason}
                continue
            create_ns: list[int] = []
            first_ns: list[int] = []
            start = time.perf_counter()
            try:
                for _ in range(repeats):
                    if create_ns and time.perf_counter() - start > max_s:
                        break
                    t0 = time.perf_counter_ns()
                    runner = create_runner(key, model, threads)
                    t1 = time.perf_counter_ns()
                    create_ns.append(t1 - t0)
                    inputs = make_inputs(runner.input_specs())
                    t2 = time.perf_counter_ns()
                    runner.run(inputs)
                    first_ns.append(time.perf_counter_ns() - t2)
                    runner.close()
                    del runner
            except Exception as e:  # noqa: BLE001
                row[key] = {"error": short_reason(e)}
                continue
            row[key] = {"create_ms": statistics.median(create_ns) / 1e6,
                        "first_run_ms": statistics.median(first_ns) / 1e6,
                        "n": len(create_ns)}
        out[name] = row
    return out


#: the constant operand and the NumPy reference of each op a chain may hold
CHAIN_OPS = {"ADD": (1.0, np.add), "MUL": (0.5, np.multiply)}


def build_chain(n_ops: int, path: str, width: int = 4, ops: Sequence[str] = ("ADD",)) -> None:
    """Write a model of ``n_ops`` chained binary ops on (1, ``width``) float32 tensors, cycling
    through ``ops`` (each with its constant, ``CHAIN_OPS``: ``ADD(x, 1)``, ``MUL(x, 0.5)``),
    built with ``onert_py.model_builder.ModelBuilder``."""
    try:
        from onert_py.model_builder import ModelBuilder
    except Exception as e:  # noqa: BLE001
        raise Unavailable(f"onert_py.model_builder.ModelBuilder unavailable: {short_reason(e, 60)}") from e
    b = ModelBuilder(fmt="tflite")
    prev = b.add_input("x", (1, width), "float32")
    consts = {op: b.add_const(op.lower(), np.full((1, width), CHAIN_OPS[op][0], np.float32))
              for op in dict.fromkeys(ops)}
    for i in range(n_ops):
        op = ops[i % len(ops)]
        t = b.add_tensor(f"t{i}", (1, width), "float32")
        b.add_op(op, [prev, consts[op]], [t], fused_activation_function="NONE")
        prev = t
    b.add_output(prev)
    data = b.build()
    with open(path, "wb") as f:
        f.write(bytes(data))


def chain_reference(x: np.ndarray, n_ops: int, ops: Sequence[str] = ("ADD",)) -> np.ndarray:
    """What the chain of :func:`build_chain` computes, in float32."""
    y = x.astype(np.float32)
    for i in range(n_ops):
        const, fn = CHAIN_OPS[ops[i % len(ops)]]
        y = fn(y, np.float32(const))
    return y


def per_op_overhead(keys: Sequence[str], threads: int, n_ops: int = 200, warmup: int = 5,
                    rounds: int | None = None, probe: ProbeFn | None = None, width: int = 4,
                    ops: Sequence[str] = ("ADD",), max_s: float = 20.0) -> dict[str, Any]:
    """Median latency of an ``n_ops``-op chain (:func:`build_chain` of ``ops`` on (1, ``width``)
    tensors) and of a 1-op model (its first op) in each runtime.

    Reports ``us_per_op`` = median(n_ops model) / n_ops and ``marginal_us_per_op`` =
    (median(n_ops model) - median(1-op model)) / (n_ops - 1), which removes the fixed
    per-inference cost (input/output copies, Python call overhead)."""
    result: dict[str, Any] = {"n_ops": n_ops, "threads": threads, "width": width,
                              "ops": list(ops), "runtimes": {k: {} for k in keys}}
    with tempfile.TemporaryDirectory(prefix="onert_py_bench_") as tmp:
        paths = {n: os.path.join(tmp, f"chain_{n}.tflite") for n in (n_ops, 1)}
        try:
            for n, p in paths.items():
                build_chain(n, p, width, ops)
        except Exception as e:  # noqa: BLE001
            result["error"] = short_reason(e)
            return result
        medians: dict[int, dict[str, Any]] = {}
        for n, p in paths.items():
            runners, errors = create_runners(
                keys, p, threads, lambda k, m: probe(k, m) if probe and k == ONERT else None)
            x = [np.arange(width, dtype=np.float32).reshape(1, width)]
            policy = RoundPolicy(rounds=rounds, min_samples=100, min_cell_s=1.0, target_s=2.0,
                                 max_rounds=2000, max_s=max_s)
            cells = measure_interleaved(runners, x, warmup, policy)
            medians[n] = {k: (c.median_ms if c.ok else None) for k, c in cells.items()}
            for k, c in cells.items():
                if c.error:
                    errors[k] = c.error
                elif n == n_ops and c.outputs is not None:
                    want = chain_reference(x[0], n_ops, ops)
                    if not np.allclose(c.outputs[0], want):
                        errors[k] = f"wrong result {c.outputs[0].ravel()[:4]} (want {want.ravel()[:4]})"
            for k, why in errors.items():
                result["runtimes"].setdefault(k, {})["error"] = why
            for k in runners:
                runners[k].close()
        for key in keys:
            entry = result["runtimes"].setdefault(key, {})
            if "error" in entry:
                continue
            big, small = medians[n_ops].get(key), medians[1].get(key)
            if big is None or small is None:
                entry["error"] = "no samples"
                continue
            entry.update({"median_ms": big, "one_op_ms": small,
                          "us_per_op": big * 1000 / n_ops,
                          "marginal_us_per_op": (big - small) * 1000 / (n_ops - 1)})
    return result
