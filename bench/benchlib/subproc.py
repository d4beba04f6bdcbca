"""Child processes: crash probes (``--_probe``) and peak-memory runs (``--_mem-child``).

A runtime that can die with a native fault (the ``onert`` package segfaults on some
models) is first tried in a child process; only models whose probe survives are run
in the benchmark process itself.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from typing import Any

from .common import (captured_stderr, interesting_stderr, make_inputs,
                     short_reason, signal_name)

BENCH_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench.py")
_TAG = "BENCHCHILD "


def _emit(payload: dict[str, Any]) -> None:
    """Write the one result line the parent looks for."""
    sys.stdout.write(_TAG + json.dumps(payload) + "\n")
    sys.stdout.flush()


def _proc_status_kb(field: str) -> int | None:
    """A ``kB`` field of /proc/self/status (``VmRSS``, ``VmHWM``), None where unavailable."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _peak_kb() -> int:
    """Peak RSS of this process image so far (kB).

    ``ru_maxrss`` is what one would normally read, but Linux carries the parent's peak
    RSS into it across fork + exec (``signal->maxrss`` keeps the max over the replaced
    address space), so a child of a big benchmark process reports the parent's size.
    ``VmHWM`` is the same high-water mark for the current address space only; it is used
    when available, ``ru_maxrss`` otherwise."""
    hwm = _proc_status_kb("VmHWM")
    return hwm if hwm is not None else int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child_probe(key: str, model: str, threads: int) -> int:
    """Body of ``--_probe``: load, run once on random inputs, report ok or the error."""
    from .runtimes import create_runner

    with captured_stderr() as lines:
        try:
            runner = create_runner(key, model, threads)
            outs = runner.run(make_inputs(runner.input_specs()))
            err = None if outs is not None else "no outputs"
        except Exception as e:  # noqa: BLE001
            err = short_reason(e)
    if err is not None:
        native = interesting_stderr(lines)
        if native and native not in err:
            err = short_reason(f"{native} ({err})")
    _emit({"ok": err is None, "error": err})
    return 0


def child_memory(key: str, model: str, threads: int, runs: int = 3) -> int:
    """Body of ``--_mem-child``: baseline RSS after imports, then load + ``runs`` inferences."""
    import numpy  # noqa: F401 - part of the baseline

    from .runtimes import create_runner, preload

    preload(key)
    baseline = _proc_status_kb("VmRSS") or 0
    peak_after_import = _peak_kb()
    with captured_stderr() as lines:
        try:
            runner = create_runner(key, model, threads)
            inputs = make_inputs(runner.input_specs())
            for _ in range(runs):
                runner.run(inputs)
            err = None
        except Exception as e:  # noqa: BLE001
            err = short_reason(e)
    peak = _peak_kb()
    ru_maxrss = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    if err is not None:
        native = interesting_stderr(lines)
        _emit({"ok": False, "error": f"{err} ({native})" if native and native not in err else err})
        return 0
    _emit({"ok": True, "baseline_kb": baseline, "peak_after_import_kb": peak_after_import,
           "peak_kb": peak, "delta_kb": peak - baseline, "ru_maxrss_kb": ru_maxrss})
    return 0


def run_child(args: list[str], timeout: float, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``bench.py <args>`` in a fresh interpreter; returns its result dict or
    ``{"ok": False, "error": reason}`` (crash, timeout, no result line)."""
    cmd = [sys.executable, BENCH_SCRIPT, *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=env if env is not None else os.environ.copy())
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout:.0f} s"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(_TAG):
            try:
                return json.loads(line[len(_TAG):])
            except json.JSONDecodeError:
                break
    native = interesting_stderr(proc.stderr.splitlines())
    why = "crashed" if proc.returncode < 0 else "failed"
    reason = f"{why} ({signal_name(proc.returncode)})"
    if native:
        reason += f": {native}"
    return {"ok": False, "error": short_reason(reason)}


def probe(key: str, model: str, threads: int = 1, timeout: float = 120.0) -> str | None:
    """None when ``key`` loads and runs ``model`` in a child process, else the reason."""
    res = run_child(["--_probe", key, model, "--threads", str(threads)], timeout)
    return None if res.get("ok") else str(res.get("error") or "probe failed")


def measure_memory(key: str, model: str, threads: int, timeout: float = 300.0) -> dict[str, Any]:
    """Peak RSS of ``key`` running ``model`` 3 times in a fresh process (see child_memory)."""
    return run_child(["--_mem-child", key, model, "--threads", str(threads)], timeout)



def child_timing(key: str, model: str, threads: int, seconds: float, warmup: int) -> int:
    """Body of ``--_time-child``: this runtime alone in a fresh process: load, ``warmup``
    runs, then timed runs for ``seconds``; reports every run's nanoseconds."""
    import time

    from .runtimes import create_runner

    with captured_stderr():
        try:
            runner = create_runner(key, model, threads)
            inputs = make_inputs(runner.input_specs())
            for _ in range(max(1, warmup)):
                runner.run(inputs)
            samples: list[int] = []
            end = time.perf_counter() + seconds
            while time.perf_counter() < end or len(samples) < 5:
                t0 = time.perf_counter_ns()
                runner.run(inputs)
                samples.append(time.perf_counter_ns() - t0)
            runner.close()
            err = None
        except Exception as e:  # noqa: BLE001
            err = short_reason(e)
    _emit({"ok": err is None, "error": err, "samples_ns": [] if err else samples})
    return 0


def measure_in_processes(keys: list[str], model: str, threads: int, rounds: int,
                         seconds: float, warmup: int, timeout: float = 600.0
                         ) -> dict[str, dict[str, Any]]:
    """Each runtime timed in its own fresh process, `rounds` times, alternating which goes
    first (above one thread, one runtime's spinning pool would otherwise steal cores from
    the other's). Returns per key {"samples_ns": all runs of all rounds} or {"error": ...}."""
    out: dict[str, dict[str, Any]] = {k: {"samples_ns": []} for k in keys}
    for r in range(rounds):
        order = keys if r % 2 == 0 else list(reversed(keys))
        for key in order:
            if "error" in out[key]:
                continue
            res = run_child(["--_time-child", key, model, "--threads", str(threads),
                             "--max-seconds", str(seconds), "--warmup", str(warmup)], timeout)
            if not res.get("ok"):
                out[key] = {"error": str(res.get("error") or "failed")}
            else:
                out[key]["samples_ns"] += res["samples_ns"]
    return out
