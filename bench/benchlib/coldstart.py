"""Cold start (bench.py --cold-start): a fresh Python process per sample, timed from before
the runtime's import to its first outputs.

* onert_py: ``import onert_py``; ``onert_py.Session(model, config={"num_threads": T})`` (the
  default backends, the default config but for the thread count); the first ``sess.run(xs)``.
* LiteRT: ``from ai_edge_litert.interpreter import Interpreter``;
  ``Interpreter(model_path, num_threads=T)`` (the default resolver: XNNPACK applied) +
  ``allocate_tensors()``; the first ``set_tensor`` + ``invoke()`` + ``get_tensor``.

T is the bench's smallest thread count (1 by default), as issue 18 measures its targets; both
runtimes get it explicitly (LiteRT's own default is 1 thread, onert_py's every core).

Nothing is imported before the clock starts (numpy comes with either runtime), so each
runtime pays for what it pulls in. Children may write bytecode caches (PYTHONDONTWRITEBYTECODE
is removed from their environment) and one untimed child per runtime runs first: a user's
process starts with the installed packages' .pyc files in place, not compiling every module. The parent runs the two children alternately, N each,
and takes medians of every phase; the child's own wall time (interpreter start and exit
included) is kept as ``process_ms``. Run as a script, this file is the child:
``python coldstart.py onert_py|litert MODEL THREADS`` prints one JSON line.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

RUNTIMES = ("onert_py", "litert")
_TAG = "COLDSTART "


def _inputs(specs):
    import numpy as np

    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, shape).astype(dtype) if np.dtype(dtype).kind == "f"
            else np.zeros(shape, dtype) for shape, dtype in specs]


def child(runtime: str, model: str, threads: int) -> dict:
    """Body of the child process: the phases of one cold start, in ms."""
    t0 = time.perf_counter()
    if runtime == "onert_py":
        import onert_py

        t1 = time.perf_counter()
        sess = onert_py.Session(model, config={"num_threads": threads})
        t2 = time.perf_counter()
        xs = _inputs([(tuple(i.shape), i.dtype) for i in sess.inputs])
        t3 = time.perf_counter()
        sess.run(xs)
    else:
        from ai_edge_litert.interpreter import Interpreter

        t1 = time.perf_counter()
        interp = Interpreter(model_path=model, num_threads=threads)
        interp.allocate_tensors()
        t2 = time.perf_counter()
        ins = interp.get_input_details()
        xs = _inputs([(tuple(d["shape"]), d["dtype"]) for d in ins])
        t3 = time.perf_counter()
        for d, x in zip(ins, xs):
            interp.set_tensor(d["index"], x)
        interp.invoke()
        [interp.get_tensor(d["index"]) for d in interp.get_output_details()]
    t4 = time.perf_counter()
    ms = 1000.0
    return {"import_ms": (t1 - t0) * ms, "create_ms": (t2 - t1) * ms,
            "first_run_ms": (t4 - t3) * ms, "total_ms": (t4 - t3 + t2 - t0) * ms}


def run_child(runtime: str, model: str, threads: int, timeout: float = 300.0) -> dict:
    """One fresh process; its phases plus ``process_ms``, or ``{"error": ...}``."""
    t0 = time.perf_counter()
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), runtime, model,
                               str(threads)],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    wall = (time.perf_counter() - t0) * 1000.0
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(_TAG):
            res = json.loads(line[len(_TAG):])
            res["process_ms"] = wall
            return res
    tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return {"error": tail[:120]}


def cold_start(model: str, runs: int, threads: int = 1, progress: bool = False) -> dict:
    """``runs`` fresh processes per runtime at ``threads`` threads, alternating (the first
    runtime switches every round); medians of each phase and the raw samples."""
    samples: dict[str, list[dict]] = {r: [] for r in RUNTIMES}
    errors: dict[str, str] = {}
    for runtime in RUNTIMES:          # untimed: bytecode caches written, files in page cache
        run_child(runtime, model, threads)
    for i in range(runs):
        for runtime in (RUNTIMES if i % 2 == 0 else RUNTIMES[::-1]):
            if runtime in errors:
                continue
            res = run_child(runtime, model, threads)
            if "error" in res:
                errors[runtime] = res["error"]
            else:
                samples[runtime].append(res)
        if progress:
            print(f"  cold start {i + 1}/{runs}", file=sys.stderr, flush=True)
    out: dict = {"model": os.path.basename(model), "runs": runs, "threads": threads,
                 "samples": samples,
                 "errors": errors, "medians": {}}
    for runtime, rows in samples.items():
        if rows:
            out["medians"][runtime] = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    return out


def cold_start_table(data: dict) -> str:
    """Markdown: median phases per runtime and the total's ratio."""
    from .report import _table, fmt_ms, fmt_ratio

    phases = ("import_ms", "create_ms", "first_run_ms", "total_ms", "process_ms")
    names = {"onert_py": "onert_py (default backends)", "litert": "LiteRT (XNNPACK)"}
    body = []
    for runtime in RUNTIMES:
        med = data["medians"].get(runtime)
        if med is None:
            body.append([names[runtime], f"n/a ({data['errors'].get(runtime, 'no samples')})"]
                        + ["–"] * (len(phases) - 1) + ["0"])
        else:
            body.append([names[runtime]] + [fmt_ms(med[p]) for p in phases]
                        + [str(len(data["samples"][runtime]))])
    med = data["medians"]
    ratio = fmt_ratio(med.get("onert_py", {}).get("total_ms"), med.get("litert", {}).get("total_ms"))
    head = ["runtime", "import ms", "create ms", "first run ms", "total ms", "process ms", "n"]
    return (f"### Cold start: {data['model']}, fresh process per sample, "
            f"{data.get('threads', 1)} thread(s), medians (onert_py/LiteRT total: {ratio})\n\n"
            "total = import + create (Session; Interpreter + allocate_tensors) + first run "
            "(inputs made outside it); process = the child's wall time seen by the parent, "
            "interpreter start and exit included.\n\n" + _table(head, body))


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        sys.path.pop(0)     # benchlib's modules must not shadow what the runtimes import
    print(_TAG + json.dumps(child(sys.argv[1], sys.argv[2], int(sys.argv[3]))), flush=True)
