#!/usr/bin/env python3
"""Throughput of onert_py on Ray Data (onert_py.ray.predict) with 1 and 2 workers, and its
overhead against a plain loop over a Session.

Per model and backend string:
- ``plain``: one Session (``num_threads: 1``), ``run()`` on one row at a time, in a loop;
- ``ray xW``: ``predict(ds, model, concurrency=W, num_cpus=1)`` on a local Ray with as many CPUs
  as the machine (one Session per worker, one thread each), over ``--rows`` rows.

Rows per second of the Ray cells are *steady* figures, from the batches' start and end times
stamped inside the workers: the rows done while every worker runs, over that window (from the
last worker's first batch to the first worker's last), so the start of Ray, of the actors and
their Sessions, and a second actor starting later than the first, are left out (start-up is
reported apart, as end-to-end seconds; the first-batch-to-last-batch rate is in --json). The rows are 64 distinct
random samples repeated, gathered from the object store by a zero-CPU step before the
workers, so that the data set does not fill the memory. Speed-up = ray x2 / ray x1;
overhead = 1 - ray x1 / plain. Ray's workers run at nice 0 here, like the plain loop (Ray
starts them at nice 15: on a shared machine they would then measure the others' load). The
report (markdown) goes to stdout; see README "On Ray" and docs/ray.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Sequence

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib.common import wait_for_idle  # noqa: E402
from benchlib.report import header_line, machine_info  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "models"))
DEFAULT_MODELS = ("mobilenet_v3_small", "mobilenet_v2_int8")
DISTINCT = 64                 # distinct samples, repeated up to --rows


class CpuShares:
    """CPU time of every process between start() and stop(), in cores, by group: this driver,
    Ray's workers (process titles ``ray::...``), Ray's services (raylet, gcs_server, ...) and
    everything else (other users of a shared machine). Linux /proc; None elsewhere."""

    GROUPS = ("driver", "ray workers", "ray services", "other")
    SERVICES = ("raylet", "gcs_server", "dashboard", "log_monitor", "runtime_env",
                "monitor.py", "ray_client_server")

    def __init__(self) -> None:
        self._start: tuple[dict[int, tuple[str, float]], float] | None = None

    @classmethod
    def _group(cls, pid: int, title: str) -> str:
        if pid == os.getpid():
            return "driver"
        if title.startswith("ray::") or "workers/default_worker.py" in title:
            return "ray workers"      # (a worker shows its script's name until it takes a task)
        return "ray services" if any(s in title for s in cls.SERVICES) else "other"

    @staticmethod
    def _sample() -> dict[int, tuple[str, float]]:
        hz, out = os.sysconf("SC_CLK_TCK"), {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    title = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            out[int(name)] = (title, (int(fields[11]) + int(fields[12])) / hz)
        return out

    def start(self) -> "CpuShares":
        self._start = (self._sample(), time.perf_counter()) if os.path.isdir("/proc") else None
        return self

    def stop(self) -> dict[str, float] | None:
        if self._start is None:
            return None
        before, t0 = self._start
        after, wall = self._sample(), time.perf_counter() - t0
        shares: dict[str, float] = {}
        for pid, (title, cpu) in after.items():
            used = cpu - before.get(pid, (title, 0.0))[1]
            group = self._group(pid, title)
            shares[group] = shares.get(group, 0.0) + max(used, 0.0) / wall
        return {k: round(v, 2) for k, v in sorted(shares.items())}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", default=list(DEFAULT_MODELS), metavar="NAME_OR_FILE",
                   help=f"model files, or names in {MODELS_DIR} "
                   f"(default: {' '.join(DEFAULT_MODELS)})")
    p.add_argument("--backends", nargs="+", default=["acl_neon;cpu"],
                   help='backend strings, one set of rows each (default "acl_neon;cpu")')
    p.add_argument("--workers", nargs="+", type=int, default=[1, 2], help="default: 1 2")
    p.add_argument("--rows", type=int, default=8192,
                   help="rows per Ray run (default 8192: fewer rows, fewer batches a worker, "
                   "make the steady rate swing by 10%% from run to run)")
    p.add_argument("--batch-size", type=int, default=64,
                   help="rows per batch (default 64, predict()'s)")
    p.add_argument("--worker-niceness", type=int, default=0, metavar="N",
                   help="nice value of Ray's workers (default 0, as the plain loop; Ray's own "
                   "default, 15, lets every other process of a shared machine go first)")
    p.add_argument("--plain-seconds", type=float, default=5.0,
                   help="seconds of the plain loop (default 5)")
    p.add_argument("--materialize", action="store_true",
                   help="put every row in the object store before timing (rows x sample "
                   "bytes of memory): the inference stage alone, without the step that "
                   "produces the rows")
    p.add_argument("--no-tune", action="store_true",
                   help="run batch-size rows per model run (predict(tune=False)) instead of "
                   "the run size each actor measures as fastest on its first batch")
    p.add_argument("--wait-idle", type=float, default=0.0, metavar="S",
                   help="before each cell, wait up to S s until other processes use < 0.25 "
                   "cores (default 0: don't wait)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="measure each cell (plain loop, then each worker count) N times in "
                        "turn and report every repeat and the median x2/x1 with its range "
                        "(default: 1)")
    p.add_argument("--json", metavar="OUT_JSON", help="also write the raw figures as JSON")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error(f"--repeat must be at least 1, got {args.repeat}")
    return args


def model_path(item: str) -> str:
    return item if os.path.isfile(item) else os.path.join(MODELS_DIR, f"{item}.tflite")


def samples(info: Any, n: int, seed: int = 0) -> np.ndarray:
    """n random samples of input `info` (images in [0, 1), integers over the dtype's range)."""
    rng = np.random.default_rng(seed)
    shape = (n, *info.shape[1:])
    dt = np.dtype(info.dtype)
    if dt.kind == "f":
        return rng.uniform(0, 1, shape).astype(dt)
    ii = np.iinfo(dt)
    return rng.integers(ii.min, ii.max, shape, endpoint=True).astype(dt)


def plain_loop(path: str, backends: str, data: np.ndarray, seconds: float) -> dict[str, float]:
    """Rows per second of Session.run on one row at a time, 1 thread."""
    import onert_py

    with onert_py.Session(path, backends=backends, config={"num_threads": 1}) as s:
        for k in range(3):
            s.run([data[k:k + 1]])
        shares = CpuShares().start()
        rows, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            k = rows % len(data)
            s.run([data[k:k + 1]])
            rows += 1
        dt = time.perf_counter() - t0
    return {"rows": rows, "seconds": dt, "rows_per_s": rows / dt, "cpu_cores": shares.stop()}


def _gather(batch: dict[str, np.ndarray], pool_ref: Any) -> dict[str, np.ndarray]:
    """The rows of `batch` ids: samples of the pool in the object store (read zero-copy)."""
    import ray

    pool = ray.get(pool_ref)
    return {"id": batch["id"], "data": pool[batch["id"] % len(pool)]}


def ray_run(path: str, backends: str, pool_ref: Any, rows: int, workers: int,
            batch_size: int, materialize: bool, tune: bool = True) -> dict[str, float]:
    """Steady rows per second of predict() with `workers` actors (see the module docstring)."""
    import ray.data

    from onert_py.ray import OnertPredictor
    from onert_py.ray.data import predictor_kwargs

    class Stamped(OnertPredictor):
        """The predictor, stamping each batch with its start and end time and its process."""

        def __call__(self, batch):
            t0, c0 = time.time(), time.process_time()
            out = super().__call__(batch)
            n = len(out["id"])
            out.update(t0=np.full(n, t0), t1=np.full(n, time.time()), pid=np.full(n, os.getpid()),
                       cpu=np.full(n, (time.process_time() - c0) / n),
                       rows_per_run=np.full(n, self.rows_per_run))
            return out

    # the ids are materialized first: reading them would take a CPU the workers hold
    ds = ray.data.range(rows, override_num_blocks=max(8, rows // (4 * batch_size))).materialize()
    # one gather task at a time: zero-CPU tasks are otherwise started as many at once as Ray
    # Data sees fit (each copying its 256 rows, 154 MB of MobileNetV3-small's float input, into
    # fresh memory); several at once kept the kernel busy faulting pages in (60-75% system
    # time) and halved two workers' rate
    ds = ds.map_batches(_gather, fn_kwargs={"pool_ref": pool_ref}, num_cpus=0,
                        compute=ray.data.TaskPoolStrategy(size=1),
                        batch_format="numpy")
    if materialize:           # the rows wait in the object store: the inference stage alone
        ds = ds.materialize()
    kwargs = predictor_kwargs(path, backends, None, 1)
    kwargs.update(batch_size=batch_size, id_column="id", keep_columns=["id"], tune=tune)
    preds = ds.map_batches(Stamped, fn_constructor_kwargs=kwargs, batch_size=batch_size,
                           num_cpus=1, batch_format="numpy",
                           compute=ray.data.ActorPoolStrategy(size=workers))
    shares = CpuShares().start()
    t0 = time.perf_counter()
    got: dict[str, list] = {k: [] for k in ("id", "t0", "t1", "pid", "cpu", "rows_per_run")}
    seen, cpu = 0, None
    for b in preds.iter_batches(batch_size=None):       # no step after the workers: it would
        for k, v in got.items():                         # wait for a CPU that they hold
            v.append(b[k])
        seen += len(b["id"])
        if seen == rows:          # before the actors exit, so that their CPU time is counted
            cpu = shares.stop()
    wall = time.perf_counter() - t0
    col = {k: np.concatenate(v) for k, v in got.items()}
    assert sorted(col["id"].tolist()) == list(range(rows)), "rows lost or duplicated"
    window = float(col["t1"].max() - col["t0"].min())
    steady = all_busy_rate(col)
    per_worker = {}
    for pid in sorted(set(col["pid"].tolist())):
        mine = col["pid"] == pid
        spans = set(zip(col["t0"][mine].tolist(), col["t1"][mine].tolist()))   # one per batch
        per_worker[pid] = {"rows": int(mine.sum()),
                           "busy": round(sum(b - a for a, b in spans) / window, 3),
                           "cpu": round(float(col["cpu"][mine].sum()) / window, 3),
                           "rows_per_run": int(col["rows_per_run"][mine][-1])}
    return {"rows": rows, "steady_seconds": steady[1], "rows_per_s": steady[0],
            "first_to_last_rows_per_s": rows / window, "end_to_end_seconds": wall,
            "workers": per_worker, "cpu_cores": cpu}


def all_busy_rate(col: dict[str, np.ndarray]) -> tuple[float, float]:
    """(rows per second, seconds) while every worker is running: from the last worker's first
    batch start to the first worker's last batch end, each batch's rows counted by the share of
    its span inside that window. A worker whose actor starts later than another's (actor and
    Session start-up, a second or more) leaves out the stretch where fewer ran. Falls back to
    first start .. last end when that window is empty (one worker, or workers that never ran at
    once)."""
    pids = np.unique(col["pid"])
    lo = max(float(col["t0"][col["pid"] == p].min()) for p in pids)
    hi = min(float(col["t1"][col["pid"] == p].max()) for p in pids)
    if hi <= lo:
        lo, hi = float(col["t0"].min()), float(col["t1"].max())
    rows = 0.0
    for t0, t1, n in _batches(col):
        span = t1 - t0
        inside = max(0.0, min(t1, hi) - max(t0, lo))
        rows += n * (inside / span if span > 0 else float(lo <= t0 <= hi))
    return rows / (hi - lo), hi - lo


def _batches(col: dict[str, np.ndarray]) -> list[tuple[float, float, int]]:
    """(start, end, rows) of each batch the workers stamped."""
    spans: dict[tuple[float, float, int], int] = {}
    for t0, t1, pid in zip(col["t0"].tolist(), col["t1"].tolist(), col["pid"].tolist()):
        spans[(t0, t1, pid)] = spans.get((t0, t1, pid), 0) + 1
    return [(t0, t1, n) for (t0, t1, _), n in spans.items()]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import ray
    import ray.data

    import onert_py

    info = machine_info()
    lines = ["## onert_py on Ray Data: rows per second", "", header_line(info),
             f"Ray {ray.__version__}; {args.rows} rows per Ray run, batch {args.batch_size}; "
             f"1 thread per Session; Ray workers at nice {args.worker_niceness}; "
             f"rows per model run {'= batch' if args.no_tune else 'tuned per actor'}", ""]
    lines += ["| model | backends | plain loop rows/s | ray x1 rows/s | ray x2 rows/s | "
              "x2 / x1 | overhead x1 vs plain | end-to-end s (x1, x2) |",
              "|---|---|---:|---:|---:|---:|---:|---|"]
    results: dict[str, Any] = {"machine": info, "args": vars(args), "cells": []}
    summary: list[str] = []
    os.environ["RAY_worker_niceness"] = str(args.worker_niceness)     # read by the raylet
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    try:
        for item in args.models:
            path = model_path(item)
            if not os.path.exists(path):
                log(f"{path}: not found, skipped")
                continue
            name = os.path.splitext(os.path.basename(path))[0]
            with onert_py.Session(path) as s:
                data = samples(s.inputs[0], DISTINCT)
            pool_ref = ray.put(data)
            for backends in args.backends:
                reps = []
                for rep in range(1, args.repeat + 1):
                    reps.append(measure_cell(name, path, backends, data, pool_ref, rep, args))
                    lines.append(row_of(reps[-1], args.workers))
                    log(lines[-1])
                results["cells"] += reps
                summary += repeat_summary(reps)
    finally:
        ray.shutdown()
    if summary:
        lines += ["", "x2 / x1 over the repeats:", "", "| model | backends | repeats | median | "
                  "range |", "|---|---|---:|---:|---|"] + summary
    lines += ["", "CPU used while the Ray cells ran (cores; the machine has "
              f"{os.cpu_count()}):", "",
              "| model | backends | workers | driver | ray workers | ray services | other |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for cell in results["cells"]:
        for w in args.workers:
            c = cell.get(f"ray_x{w}", {}).get("cpu_cores") or {}
            lines.append(f"| {cell['model']} | {cell['backends']} | {w} | "
                         + " | ".join(f"{c.get(g, 0.0):.2f}" for g in CpuShares.GROUPS) + " |")
    lines += ["", "Ray cells: steady rows/s, while every worker runs (from the last worker's "
              "first batch to the first worker's last, stamped inside the workers; start-up "
              "excluded, end-to-end seconds include it). "
              "The CPU table covers each Ray cell's whole run, start-up included; each "
              "worker's busy and on-CPU shares of the steady window are in --json (workers). "
              "On a shared machine figures are noisy."]
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=float)
    return 0


def measure_cell(name: str, path: str, backends: str, data: np.ndarray, pool_ref: Any,
                 rep: int, args: argparse.Namespace) -> dict[str, Any]:
    """One repeat of a model's cell: the plain loop, then Ray with each worker count."""
    cell: dict[str, Any] = {"model": name, "backends": backends, "repeat": rep}
    if args.wait_idle:
        wait_for_idle(args.wait_idle)
    log(f"{name} [{backends}] #{rep}: plain loop")
    cell["plain"] = plain_loop(path, backends, data, args.plain_seconds)
    for w in args.workers:
        if args.wait_idle:
            wait_for_idle(args.wait_idle)
        log(f"{name} [{backends}] #{rep}: ray x{w}")
        cell[f"ray_x{w}"] = ray_run(path, backends, pool_ref, args.rows, w, args.batch_size,
                                    args.materialize, not args.no_tune)
    return cell


def repeat_summary(reps: list[dict[str, Any]]) -> list[str]:
    """The summary row of a cell's repeats (median x2 / x1 and its range); none for one."""
    ratios = [c["ray_x2"]["rows_per_s"] / c["ray_x1"]["rows_per_s"] for c in reps
              if "ray_x1" in c and "ray_x2" in c]
    if len(ratios) < 2:
        return []
    return [f"| {reps[0]['model']} | {reps[0]['backends']} | {len(ratios)} | "
            f"{float(np.median(ratios)):.2f}x | {min(ratios):.2f}x - {max(ratios):.2f}x |"]


def row_of(cell: dict[str, Any], workers: Sequence[int]) -> str:
    plain = cell["plain"]["rows_per_s"]
    r1, r2 = cell.get("ray_x1", {}), cell.get("ray_x2", {})

    def rate(r: dict) -> str:
        return f"{r['rows_per_s']:.1f}" if r else "n/a"

    ratio = f"{r2['rows_per_s'] / r1['rows_per_s']:.2f}x" if r1 and r2 else "n/a"
    overhead = f"{100 * (1 - r1['rows_per_s'] / plain):.1f} %" if r1 else "n/a"
    e2e = ", ".join(f"{cell[f'ray_x{w}']['end_to_end_seconds']:.1f}" for w in workers
                    if f"ray_x{w}" in cell)
    return (f"| {cell['model']} | {cell['backends']} | {plain:.1f} | {rate(r1)} | {rate(r2)} | "
            f"{ratio} | {overhead} | {e2e} |")


if __name__ == "__main__":
    raise SystemExit(main())
