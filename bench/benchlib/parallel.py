"""``--parallel``: the Linear, Dataflow and Parallel executors on a model with two independent
branches placed on two backends.

The model (built with ``onert_py.model_builder.ModelBuilder``): x[M, K] feeds two chains of
``depth`` FULLY_CONNECTED ops (K -> K, weights of their own), joined by one ADD. Branch A
runs on ``cpu``, branch B on ``cpu2`` (the cpu kernels under a second id, the test plug-in
``tests/plugins/libbackend_cpu2.py``, found through ``backend_paths``), the ADD on cpu. BLAS
is limited to one thread (``num_threads: 1``), so any speed-up comes from the Parallel
executor running the two branches on two worker threads at once (NumPy releases the GIL
inside matmul). A traced Parallel session writes a Chrome trace that shows the overlap.
"""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np

from .common import LoadMeter, make_inputs, max_abs_diff, short_reason
from .report import _table, fmt_ms, fmt_ratio
from .runtimes import OnertPyRunner
from .timing import RoundPolicy, measure_interleaved

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(REPO_ROOT, "tests", "plugins")
EXECUTORS = ("Linear", "Dataflow", "Parallel")


def build_two_branch_model(path: str, m: int = 256, k: int = 512, depth: int = 4,
                           seed: int = 0) -> dict[int, str]:
    """Write the model; return the op -> backend map (branch A: cpu, branch B: cpu2)."""
    from onert_py.model_builder import ModelBuilder

    rng = np.random.default_rng(seed)
    b = ModelBuilder(fmt="tflite")
    x = b.add_input("x", (m, k), "float32")
    ends, op_backend, op = [], {}, 0
    for branch, backend in (("a", "cpu"), ("b", "cpu2")):
        t = x
        for d in range(depth):
            w = b.add_const(f"{branch}w{d}", (rng.standard_normal((k, k)) / np.sqrt(k))
                            .astype(np.float32))
            bias = b.add_const(f"{branch}b{d}", rng.standard_normal(k).astype(np.float32))
            o = b.add_tensor(f"{branch}{d}", (m, k), "float32")
            b.add_op("FULLY_CONNECTED", [t, w, bias], [o], fused_activation_function="TANH")
            op_backend[op], op, t = backend, op + 1, o
        ends.append(t)
    y = b.add_tensor("y", (m, k), "float32")
    b.add_op("ADD", ends, [y])
    op_backend[op] = "cpu"
    b.add_output(y)
    b.save(path)
    return op_backend


class ExecutorRunner(OnertPyRunner):
    """``onert_py.Session`` with one executor and the two-backend map."""

    def __init__(self, model: str, executor: str, config: dict[str, Any]) -> None:
        import onert_py

        self.key = executor
        self.sess = onert_py.Session(model, config={**config, "executor": executor})


def overlap_of_trace(path: str, one: str = "0, cpu", other: str = "0, cpu2") -> dict[str, Any]:
    """Per run, how long ops on thread ``one`` and on thread ``other`` ran at the same time."""
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    spans: dict[str, list[tuple[float, float]]] = {}
    opened: dict[int, float] = {}
    for e in events:
        if e["ph"] == "B":
            opened[e["tid"]] = e["ts"]
        elif e["ph"] == "E":
            spans.setdefault(names[e["tid"]], []).append((opened.pop(e["tid"]), e["ts"]))
    both = sum(max(0.0, min(e0, e1) - max(s0, s1))
               for s0, e0 in spans.get(one, []) for s1, e1 in spans.get(other, []))
    busy = {t: sum(e - s for s, e in spans.get(t, [])) for t in (one, other)}
    return {"overlap_ms": both / 1e3, "busy_ms": {t: v / 1e3 for t, v in busy.items()},
            "threads": sorted(spans)}


def run_parallel_bench(args, m: int = 256, k: int = 512, depth: int = 4,
                       trace_runs: int = 5) -> dict[str, Any]:
    """Time the three executors interleaved (1 BLAS thread) and write a Parallel trace."""
    config = {"backends": ["cpu", "cpu2"], "backend_paths": [PLUGINS], "num_threads": 1}
    result: dict[str, Any] = {"m": m, "k": k, "depth": depth, "cells": {}}
    if not os.path.isfile(os.path.join(PLUGINS, "libbackend_cpu2.py")):
        result["error"] = f"no cpu2 plug-in in {PLUGINS}"
        return result
    with tempfile.TemporaryDirectory(prefix="onert_py_bench_") as tmp:
        path = os.path.join(tmp, "two_branches.tflite")
        config["op_backend_map"] = build_two_branch_model(path, m, k, depth)
        runners = {}
        try:
            for ex in EXECUTORS:
                runners[ex] = ExecutorRunner(path, ex, config)
        except Exception as e:  # noqa: BLE001
            result["error"] = short_reason(e)
            return result
        inputs = make_inputs(runners["Linear"].input_specs())
        # Parallel keeps two cores busy: rounds as in the multi-thread tables (README, Method)
        warm_ms = 200.0 if args.switch_warmup_ms is None else args.switch_warmup_ms
        policy = RoundPolicy(rounds=args.rounds, min_samples=60, max_s=args.max_seconds,
                             switch_warm_s=warm_ms / 1e3,
                             block=max(1, args.block or 3))
        meter = LoadMeter().start()
        cells = measure_interleaved(runners, inputs, args.warmup, policy, progress=True)
        result["other_load"] = meter.stop()
        for r in runners.values():
            r.close()
        result["cells"] = {ex: c.as_dict() for ex, c in cells.items()}
        lin = cells["Linear"]
        result["diff"] = {ex: (max_abs_diff(c.outputs, lin.outputs) if c.ok and lin.ok else None)
                          for ex, c in cells.items()}
        trace = args.trace or os.path.join(tempfile.gettempdir(), "onert_py_parallel_trace.json")
        traced = ExecutorRunner(path, "Parallel", {**config, "tracing": trace})
        for _ in range(trace_runs):
            traced.run(inputs)
        traced.close()                  # writes the trace
        result["trace"] = trace
        result["trace_runs"] = trace_runs
        result["overlap"] = overlap_of_trace(trace)
    return result


def parallel_table(res: dict[str, Any]) -> str:
    """Markdown: median latency per executor, speed-up over Linear, the trace's overlap."""
    title = (f"### Executors on two independent branches (2 x {res['depth']} FULLY_CONNECTED "
             f"[{res['m']}x{res['k']}] x [{res['k']}x{res['k']}], branch A on cpu, branch B on "
             f"cpu2, num_threads 1)")
    if res.get("error"):
        return f"{title}\n\nn/a ({res['error']})"
    cells = res["cells"]
    lin = cells.get("Linear", {}).get("median_ms")
    rows = []
    for ex, c in cells.items():
        if c.get("error"):
            rows.append([ex, f"n/a ({c['error']})", "–", "–", "–", "–", "–"])
            continue
        d = res["diff"].get(ex)
        rows.append([ex, fmt_ms(c.get("median_ms")), fmt_ms(c.get("p10_ms")),
                     fmt_ms(c.get("p90_ms")), fmt_ratio(lin, c.get("median_ms")),
                     "0" if d == 0 else str(d), str(c.get("n", 0))])
    table = _table(["executor", "median ms", "p10 ms", "p90 ms", "speed-up vs Linear",
                    "max abs diff vs Linear", "samples"], rows)
    ov = res.get("overlap") or {}
    busy = ov.get("busy_ms", {})
    load = res.get("other_load")
    note = ("" if load is None else f"Other load while measuring: {load:.2f} cores. ")
    note += (f"Trace of {res.get('trace_runs')} Parallel runs: {res.get('trace')} (open in "
            f"https://ui.perfetto.dev). Ops on `0, cpu` busy {busy.get('0, cpu', 0):.1f} ms, on "
            f"`0, cpu2` {busy.get('0, cpu2', 0):.1f} ms, both at once {ov.get('overlap_ms', 0):.1f} ms.")
    return f"{title}\n\n{table}\n\n{note}"


def run_and_report(args) -> tuple[dict[str, Any], str]:
    try:
        res = run_parallel_bench(args)
    except Exception as e:  # noqa: BLE001
        res = {"error": short_reason(e), "depth": "?", "m": "?", "k": "?"}
    return res, parallel_table(res)
