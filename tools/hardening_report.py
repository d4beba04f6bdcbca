"""The hardening figures in one place: fuzzing, the long run, session create/close cycles.

    python tools/hardening_report.py                          # defaults below
    python tools/hardening_report.py --fuzz-seconds 60 --runs 10000 --cycles 1000

Fuzzing is tools/fuzz.py's `fuzz(seconds, seed)` (cases, findings, by_kind, saved); the long
run and the cycles are tools/long_run.py. A part that cannot run says so and the others still
report; the exit status is 1 when fuzzing found something or resources leaked.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from types import ModuleType

TOOLS = os.path.dirname(os.path.abspath(__file__))
MB = 1 << 20


def load_tool(name: str) -> ModuleType | None:
    """tools/<name>.py as a module, or None where the file does not exist."""
    path = os.path.join(TOOLS, f"{name}.py")
    if not os.path.isfile(path):
        return None
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == path:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def fuzz_section(seconds: float, seed: int, save: bool) -> tuple[list[str], bool]:
    """Report lines for fuzzing, and whether it found anything. Reproducers are saved (where
    tools/fuzz.py saves them) only with `save`."""
    try:
        fuzz_mod = load_tool("fuzz")
    except Exception as e:
        return [f"fuzzing: tools/fuzz.py failed to import: {type(e).__name__}: {e}"], False
    if fuzz_mod is None or not hasattr(fuzz_mod, "fuzz"):
        return ["fuzzing: tools/fuzz.py (with fuzz(seconds, seed)) is missing; not run"], False
    if save:
        r = fuzz_mod.fuzz(seconds, seed)
    else:
        try:
            r = fuzz_mod.fuzz(seconds, seed, save_dir=None)
        except TypeError:               # an older fuzz() without save_dir
            r = fuzz_mod.fuzz(seconds, seed)
    lines = [f"fuzzing: {r['cases']} cases in {seconds:g} s (seed {seed}), "
             f"{r['findings']} findings"]
    found: dict[str, int] = {}
    for case in r.get("finding_cases") or []:
        found[str(case[1])] = found.get(str(case[1]), 0) + 1
    for kind, n in sorted(dict(r.get("by_kind") or {}).items()):
        lines.append(f"  {kind:22s} {n:6d} cases" + (f", {found[kind]} findings"
                                                     if kind in found else ""))
    for case in r.get("finding_cases") or []:
        lines.append(f"  finding: case {case[0]} ({case[1]}): {case[2]}")
    saved = r.get("saved") or []
    if saved:
        lines.append(f"  saved reproducers: {', '.join(map(str, saved))}")
    return lines, bool(r["findings"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fuzz-seconds", type=float, default=30.0, help="fuzzing budget (0: skip)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-findings", action="store_true",
                   help="let tools/fuzz.py save reproducers of findings")
    p.add_argument("--runs", type=int, default=10_000, help="long-run length (0: skip)")
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--cycles", type=int, default=1000, help="sessions to cycle (0: skip)")
    p.add_argument("--model", help="model for the long run and the cycles (default: generated)")
    p.add_argument("--backends", help="backends for the long run and the cycles")
    a = p.parse_args(argv)
    bad = False
    print("== onert_py hardening report ==")
    if a.fuzz_seconds > 0:
        lines, found = fuzz_section(a.fuzz_seconds, a.seed, a.save_findings)
        print("\n".join(lines))
        bad |= found
    else:
        print("fuzzing: skipped (--fuzz-seconds 0)")
    long_run = load_tool("long_run")
    if a.runs > 0:
        r = long_run.long_run(a.model, a.runs, a.warmup, max(a.runs // 40, 1),
                              a.backends or "cpu", seed=a.seed)
        print(f"long run: {r.runs} runs after {r.warmup} warm-up runs, max RSS growth "
              f"{r.rss_max_growth / MB:.2f} MiB (RSS {r.rss_warm / MB:.1f} -> "
              f"{r.rss_end / MB:.1f} MiB), tracemalloc max growth "
              f"{r.traced_max_growth / 1024:.1f} KiB, {r.seconds:.1f} s")
    else:
        print("long run: skipped (--runs 0)")
    if a.cycles > 0:
        c = long_run.cycle(a.model, a.cycles, a.backends, seed=a.seed)
        cl = ("not counted (acl_cl not in use)" if c.cl_delta is None
              else f"{c.cl_before} -> {c.cl_after} (delta {c.cl_delta})")
        print(f"sessions cycled: {c.sessions} on {c.backends}, fd delta {c.fd_delta}, "
              f"backend users {c.users_before} -> {c.users_after}, OpenCL objects {cl}")
        bad |= bool(c.fd_delta) or bool(c.cl_delta) or c.users_after != c.users_before
    else:
        print("sessions cycled: skipped (--cycles 0)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
