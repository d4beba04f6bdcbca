"""The latency rows of bench.py: each model loaded in every runtime, timed (interleaved in one
process at 1 thread, each runtime in its own processes above), outputs compared with LiteRT's;
rows above 1 thread carry the host probe's readings (host_probe.py)."""
from __future__ import annotations

import argparse
import gc
import sys
from typing import Any, Sequence

from .common import LoadMeter, make_inputs, max_abs_diff, short_reason, specs_match, wait_for_idle
from .runtimes import BUILTIN, ONERT, XNNPACK, Runner, create_runners, parse_onert_py_key
from .timing import Cell, RoundPolicy, measure_interleaved


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class OnertProbes:
    """Caches, per model file, whether the ``onert`` package survives it in a child process."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def reason(self, key: str, model: str) -> str | None:
        """None when ``key`` may run ``model`` in-process; only ``onert`` is probed."""
        if key != ONERT:
            return None
        if model not in self._cache:
            from .subproc import probe

            self._cache[model] = probe(ONERT, model)
            if self._cache[model]:
                log(f"    onert probe failed: {self._cache[model]}")
        return self._cache[model]


def round_policy(args: argparse.Namespace, threads: int) -> RoundPolicy:
    """Rounds of the latency tables: plain round-robin at 1 thread; at more threads each
    runtime gets a switch warmup and a block of timed runs per round (see timing.py)."""
    multi = threads > 1
    warm_ms = args.switch_warmup_ms if args.switch_warmup_ms is not None else (200.0 if multi else 0.0)
    block = args.block if args.block is not None else (3 if multi else 1)
    return RoundPolicy(rounds=args.rounds, max_s=args.max_seconds, switch_warm_s=warm_ms / 1000,
                       block=max(1, block))


def measure_separately(runners: dict[str, Runner], inputs, model: str, threads: int,
                       args: argparse.Namespace) -> dict[str, Cell]:
    """Above one thread: each runtime timed alone in its own fresh process, alternating
    (`--proc-rounds` processes per runtime of `--proc-seconds` each); the runners here
    only give the outputs compared against LiteRT's. In one process, the thread pool one
    runtime leaves spinning steals cores from the next one's and distorts both."""
    from .subproc import measure_in_processes

    cells = {k: Cell(k) for k in runners}
    for key, r in runners.items():
        try:
            cells[key].outputs = [o.copy() for o in r.run(inputs)]
        except Exception as e:  # noqa: BLE001
            cells[key].error = short_reason(e)
        r.close()
    live = [k for k in runners if cells[k].error is None]
    print(f"    {len(live)} runtimes x {args.proc_rounds} processes of {args.proc_seconds} s, "
          f"alternating", file=sys.stderr, flush=True)
    timed = measure_in_processes(live, model, threads, args.proc_rounds, args.proc_seconds,
                                 args.warmup)
    for key, res in timed.items():
        if "error" in res:
            cells[key].error = res["error"]
        else:
            cells[key].samples_ns = res["samples_ns"]
    return cells


def bench_model(model: str, keys: Sequence[str], threads: int, args: argparse.Namespace,
                probes: OnertProbes, host: Any = None) -> dict[str, Any]:
    """Load ``model`` in every runtime, time them interleaved, compare outputs. ``host``
    (benchlib.host_probe.HostProbe) is timed just before and after a multi-thread row."""
    runners, errors = create_runners(keys, model, threads, probes.reason)
    row: dict[str, Any] = {"cells": {}, "diff": {}}
    ref_key, specs = None, []
    for key in dict.fromkeys([BUILTIN, XNNPACK, *keys]):
        if key not in runners:
            continue
        try:
            specs = runners[key].input_specs()
        except Exception as e:  # noqa: BLE001
            errors[key] = f"input_specs() failed: {short_reason(e, 60)}"
            runners.pop(key).close()
            continue
        if all(d >= 0 for s in specs for d in s.shape):
            ref_key = key
            break
    if ref_key is None:
        for key in list(runners):
            errors[key] = "no runtime reports static input shapes"
            runners.pop(key).close()
    if ref_key is not None:
        row["inputs"] = ", ".join(s.describe() for s in specs)
        inputs = make_inputs(specs)
        for key in list(runners):
            try:
                mismatch = specs_match(runners[key].input_specs(), specs)
            except Exception as e:  # noqa: BLE001
                mismatch = f"input_specs() failed: {short_reason(e, 50)}"
            if mismatch:
                errors[key] = f"inputs differ from {ref_key}: {mismatch}"
                runners.pop(key).close()
        policy = round_policy(args, threads)
        if args.wait_idle > 0:
            wait_for_idle(args.wait_idle)
        before = host.probe() if host is not None and threads > 1 else None
        meter = LoadMeter().start()
        if threads > 1 and not args.same_process:
            cells = measure_separately(runners, inputs, model, threads, args)
            row["method"] = "own processes"
        else:
            cells = measure_interleaved(runners, inputs, args.warmup, policy, progress=True)
        row["other_load"] = meter.stop()
        if before is not None:
            row["host_probe"] = [before, host.probe()]
        ref = next((k for k in (BUILTIN, XNNPACK) if k in cells and cells[k].ok), None)
        row["diff_ref"] = ref
        for key, cell in cells.items():
            row["cells"][key] = cell.as_dict()
            if parse_onert_py_key(key) is None:
                continue
            if not cell.ok:
                row["diff"][key] = None
            elif ref is None:
                row["diff"][key] = "no LiteRT reference"
            else:
                row["diff"][key] = max_abs_diff(cell.outputs, cells[ref].outputs)
        for r in runners.values():
            r.close()
        del runners, cells
        gc.collect()
    for key, why in errors.items():
        row["cells"][key] = {"key": key, "error": why}
        if parse_onert_py_key(key) is not None:
            row["diff"][key] = None
    row["cells"] = {k: row["cells"][k] for k in keys if k in row["cells"]}
    return row
