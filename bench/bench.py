#!/usr/bin/env python3
"""Benchmark onert_py against LiteRT (XNNPACK and builtin kernels) and the ``onert`` package.

All runtimes run in one process, interleaved round-robin (one run of each per round,
after warmup), on the same random inputs; the table reports median latencies, ratios and
the max abs difference of onert_py's outputs from LiteRT's builtin kernels. A default run
adds session creation times, peak memory (fresh child processes) and per-op overhead.
On request: end-to-end and steady-state latency of issue 18's models (--e2e), cold start in
fresh processes (--cold-start) and issue 18's target table (--targets). See bench/README.md.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchlib.latency import OnertProbes, bench_model  # noqa: E402
from benchlib.runtimes import (BUILTIN, ONERT, XNNPACK, onert_py_import_error,  # noqa: E402
                               onert_py_key)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS_DIR = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "models"))
RUNTIME_CHOICES = ("onert_py", XNNPACK, BUILTIN, ONERT)


def log(msg: str) -> None:
    """Progress messages go to stderr so that stdout is the markdown report."""
    print(msg, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command line of the benchmark (and of its hidden child modes)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", metavar="DIR_OR_FILE",
                   help=f"model files or folders of *.tflite/*.circle (default: {DEFAULT_MODELS_DIR})")
    p.add_argument("--threads", nargs="+", type=int, metavar="T",
                   help="thread counts, one table each (default: 1 2, capped at the core count)")
    p.add_argument("--rounds", type=int, help="timed rounds per model (default: automatic, "
                   "≥20 samples or ≥2 s per cell, more while cheap)")
    p.add_argument("--warmup", type=int, default=3, help="warmup rounds (default: 3)")
    p.add_argument("--max-seconds", type=float, default=15.0,
                   help="automatic rounds stop after this many seconds per model and thread "
                   "count, once every cell has 5 samples (default: 15)")
    p.add_argument("--switch-warmup-ms", type=float,
                   help="untimed runs of a runtime before its timed run(s) in each round "
                   "(default: 0 at 1 thread, 200 ms at more threads; see README)")
    p.add_argument("--block", type=int,
                   help="timed runs per runtime per round (default: 1 at 1 thread, 3 at more)")
    p.add_argument("--wait-idle", type=float, default=0.0, metavar="S",
                   help="before each latency row, wait up to S seconds until other processes "
                   "use < 0.25 cores (default: 0 = don't wait)")
    p.add_argument("--backends", nargs="+",
                   help='onert_py backend strings, one column each (e.g. cpu "acl_neon;cpu"; '
                   'default: cpu, with --targets acl_neon;cpu)')
    p.add_argument("--runtimes", nargs="+", choices=RUNTIME_CHOICES, default=list(RUNTIME_CHOICES),
                   help="runtimes to include (default: all)")
    p.add_argument("--markdown", metavar="OUT_MD", help="also write the report to this file")
    p.add_argument("--json", metavar="OUT_JSON", help="write all raw results as JSON")
    p.add_argument("--quick", action="store_true", help="latency tables only")
    p.add_argument("--latency", action="store_true", help="run the latency tables")
    p.add_argument("--session-time", action="store_true", help="onert_py session creation time")
    p.add_argument("--peak-memory", action="store_true", help="peak RSS per runtime (child processes)")
    p.add_argument("--per-op-overhead", action="store_true", help="µs per op on a 200-ADD chain")
    p.add_argument("--parallel", action="store_true",
                   help="Linear vs Dataflow vs Parallel executor on two branches on two backends "
                   "(only when asked for; see README)")
    p.add_argument("--e2e", action="store_true",
                   help="end to end (sess.run vs set_tensor + invoke + get_tensor) and steady "
                   "state (vs invoke alone) on issue 18's models")
    p.add_argument("--cold-start", action="store_true",
                   help="import + create + first run in fresh processes, onert_py vs LiteRT")
    p.add_argument("--cold-runs", type=int, default=10, metavar="N",
                   help="--cold-start: fresh processes per runtime (default: 10)")
    p.add_argument("--targets", action="store_true",
                   help="issue 18's target table (runs --e2e at the smallest thread count, "
                   "the 200-op chain on acl_neon and --cold-start)")
    p.add_argument("--trace", metavar="OUT_JSON",
                   help="--parallel: where to write the Parallel run's trace "
                   "(default: onert_py_parallel_trace.json in the temp folder)")
    p.add_argument("--same-process", action="store_true",
                   help="above 1 thread, time the runtimes interleaved in this process too "
                   "(default: each runtime alone in its own processes, alternating)")
    p.add_argument("--proc-rounds", type=int, default=4, metavar="N",
                   help="above 1 thread: processes per runtime, alternating (default 4)")
    p.add_argument("--proc-seconds", type=float, default=2.0, metavar="S",
                   help="above 1 thread: seconds of timed runs per process (default 2)")
    p.add_argument("--_probe", nargs=2, metavar=("RUNTIME", "MODEL"), help=argparse.SUPPRESS)
    p.add_argument("--_mem-child", nargs=2, metavar=("RUNTIME", "MODEL"), help=argparse.SUPPRESS)
    p.add_argument("--_time-child", nargs=2, metavar=("RUNTIME", "MODEL"), help=argparse.SUPPRESS)
    return p.parse_args(argv)


def find_models(items: Sequence[str] | None) -> list[str]:
    """Model files from files/folders (default folder: ../shared/models of the repo)."""
    items = list(items) if items else [DEFAULT_MODELS_DIR]
    found: list[str] = []
    for item in items:
        if os.path.isdir(item):
            found += sorted(glob.glob(os.path.join(item, "*.tflite")) + glob.glob(os.path.join(item, "*.circle")))
        elif os.path.isfile(item):
            found.append(item)
        else:
            log(f"warning: {item} not found, skipped")
    return found


def run_memory(models: Sequence[str], keys: Sequence[str], threads: int,
               probes: OnertProbes) -> dict[str, dict[str, Any]]:
    """Peak RSS per model and runtime, each in a fresh child process (2 at a time)."""
    from benchlib.subproc import measure_memory

    jobs = [(m, k) for m in models for k in keys]

    def one(job: tuple[str, str]) -> dict[str, Any]:
        model, key = job
        reason = probes.reason(key, model)
        if reason:
            return {"ok": False, "error": reason}
        return measure_memory(key, model, threads)

    if ONERT in keys:  # probe first, sequentially, so the worker threads only read the cache
        for m in models:
            probes.reason(ONERT, m)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, jobs))
    out: dict[str, dict[str, Any]] = {}
    for (model, key), res in zip(jobs, results):
        out.setdefault(os.path.basename(model), {})[key] = res
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = parse_args(argv)
    threads = args.threads or [t for t in (1, 2) if t <= (os.cpu_count() or 1)]
    if args._time_child:
        from benchlib import subproc

        key, model = args._time_child
        return subproc.child_timing(key, model, threads[0], args.max_seconds or 2.0,
                                    args.warmup)
    if args._probe or args._mem_child:
        from benchlib import subproc

        key, model = args._probe or args._mem_child
        fn = subproc.child_probe if args._probe else subproc.child_memory
        return fn(key, model, threads[0])

    from benchlib import report

    backends = args.backends or (["acl_neon;cpu"] if args.targets else ["cpu"])
    py_keys = [onert_py_key(b) for b in backends] if "onert_py" in args.runtimes else []
    keys = py_keys + [k for k in (XNNPACK, BUILTIN, ONERT) if k in args.runtimes]
    explicit = (args.latency or args.session_time or args.peak_memory or args.per_op_overhead
                or args.parallel or args.e2e or args.cold_start or args.targets)
    modes = {"latency": args.latency or not explicit,
             "session": args.session_time or (not explicit and not args.quick),
             "memory": args.peak_memory or (not explicit and not args.quick),
             "overhead": args.per_op_overhead or (not explicit and not args.quick),
             "parallel": args.parallel, "e2e": args.e2e or args.targets,
             "cold": args.cold_start or args.targets, "targets": args.targets}
    models = find_models(args.models)
    info = report.machine_info()
    results: dict[str, Any] = {"machine": info, "threads": threads, "runtimes": keys,
                               "models": [os.path.basename(m) for m in models]}
    sections = ["## onert_py benchmark", "", report.header_line(info), ""]
    py_err = onert_py_import_error()
    if py_err and py_keys:
        sections += [f"onert_py: n/a ({py_err})", ""]
        results["onert_py_error"] = py_err
    if not models and (modes["latency"] or modes["session"] or modes["memory"]):
        sections += [f"No models found (looked in {', '.join(args.models or [DEFAULT_MODELS_DIR])}); "
                     "model tables skipped.", ""]
    log(sections[2])
    probes = OnertProbes()
    host = None
    if modes["latency"] and models and max(threads) > 1:
        from benchlib.host_probe import HostProbe
        host = HostProbe()
    t_start = time.perf_counter()

    if modes["latency"] and models:
        results["latency"] = {}
        # Largest thread count first: the onert package keeps the thread pool size of the
        # first session of the process, so a later session can use fewer threads, not more.
        for t in sorted(set(threads), reverse=True):
            rows: dict[str, Any] = {}
            for model in models:
                log(f"[latency {t}T] {os.path.basename(model)}")
                rows[os.path.basename(model)] = bench_model(model, keys, t, args, probes, host)
            results["latency"][str(t)] = rows
        if host is not None:
            host.close()
        for t in sorted(set(threads)):
            sections += [report.latency_table(t, results["latency"][str(t)], py_keys), ""]

    if modes["session"] and models:
        from benchlib.overhead import session_times

        log("[session time]")
        st_keys = [k for k in keys if k != ONERT]
        results["session_time"] = session_times(models, st_keys, min(threads), probe=probes.reason,
                                                progress=True)
        sections += [report.session_table(results["session_time"], st_keys, min(threads)), ""]

    if modes["memory"] and models:
        log("[peak memory]")
        results["peak_memory"] = run_memory(models, keys, min(threads), probes)
        sections += [report.memory_table(results["peak_memory"], keys, min(threads)), ""]

    if modes["overhead"]:
        from benchlib.overhead import per_op_overhead

        log("[per-op overhead]")
        results["per_op_overhead"] = per_op_overhead(keys, min(threads), probe=probes.reason)
        sections += [report.overhead_table(results["per_op_overhead"]), ""]

    if modes["e2e"]:
        from benchlib.e2e import E2E_MODELS, e2e_keys, e2e_table, write_models

        e2e_threads = sorted(set(threads)) if args.e2e else [min(threads)]
        results["e2e"] = {}
        with tempfile.TemporaryDirectory(prefix="onert_py_e2e_") as tmp:
            paths, missing = write_models(tmp, DEFAULT_MODELS_DIR)
            for t in sorted(e2e_threads, reverse=True):
                rows: dict[str, Any] = {}
                for name in E2E_MODELS:
                    if name in missing:
                        rows[name] = {"error": missing[name]}
                        continue
                    log(f"[e2e {t}T] {name}")
                    rows[name] = bench_model(paths[name], e2e_keys(py_keys), t, args, probes)
                results["e2e"][str(t)] = rows
        for t in e2e_threads:
            sections += [e2e_table(t, results["e2e"][str(t)], py_keys), ""]

    if modes["targets"]:
        from benchlib.overhead import per_op_overhead
        from benchlib.targets import CHAIN_BACKENDS, CHAIN_OPS, CHAIN_WIDTH

        log(f"[targets: 200-op chain on {CHAIN_BACKENDS}]")
        results["chain_overhead"] = per_op_overhead(
            [onert_py_key(CHAIN_BACKENDS), XNNPACK, BUILTIN], min(threads), rounds=args.rounds,
            width=CHAIN_WIDTH, ops=CHAIN_OPS, max_s=args.max_seconds)
        sections += [report.overhead_table(results["chain_overhead"]), ""]

    if modes["cold"]:
        from benchlib.coldstart import cold_start, cold_start_table
        from benchlib.targets import COLD_MODEL

        cold_model = os.path.join(DEFAULT_MODELS_DIR, f"{COLD_MODEL}.tflite")
        log(f"[cold start: {COLD_MODEL}, {args.cold_runs} processes per runtime, "
            f"{min(threads)} thread(s)]")
        if os.path.isfile(cold_model):
            results["cold_start"] = cold_start(cold_model, args.cold_runs, min(threads),
                                               progress=True)
            sections += [cold_start_table(results["cold_start"]), ""]
        else:
            results["cold_start"] = {"errors": {"onert_py": f"{cold_model} not found"}}
            sections += [f"Cold start skipped: {cold_model} not found.", ""]

    if modes["targets"]:
        from benchlib.targets import target_rows, targets_table

        t = min(threads)
        py_key = py_keys[0] if py_keys else onert_py_key(backends[0])
        results["targets"] = target_rows(results.get("e2e", {}).get(str(t)), py_key,
                                         results.get("chain_overhead"), results.get("cold_start"))
        sections += [targets_table(results["targets"], py_key, t), ""]

    if modes["parallel"]:
        from benchlib.parallel import run_and_report

        log("[executors: Linear / Dataflow / Parallel]")
        results["parallel"], table = run_and_report(args)
        sections += [table, ""]

    elapsed = time.perf_counter() - t_start
    results["elapsed_s"] = elapsed
    sections.append(f"_Total benchmark time: {elapsed:.0f} s._")
    text = "\n".join(sections) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
