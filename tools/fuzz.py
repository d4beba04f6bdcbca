"""Fuzz onert_py with broken and hostile model files.

    python tools/fuzz.py --seconds 60 [--seed 0] [--models DIR] [--strict]

Each case takes a seed model (tools/fuzz_seeds.py), applies a mutation (tools/fuzz_mutators.py:
bit flips, truncation, offsets and lengths out of range, huge dimensions, negative and
out-of-range indices, cycles, If/While subgraph indices out of range or calling themselves,
shared buffers, dtypes, ranks, option values, constant data, arity, opcodes), then loads,
compiles and runs it in a worker process (tools/fuzz_runner.py). A case passes when it works
or raises an onert_py error; anything else is a finding: another exception type, a crash,
a hang past the per-case timeout, or memory past the bound. Findings are saved as
tests/fuzz_regressions/<mutation>-<sha1[:12]>.tflite|.circle with a .txt saying what happened.

Case i of seed S is a pure function of (S, i), so a run is reproduced by its seed (time only
decides how many cases run), and `--case I` replays one case. Cases come from a seeded
random.Random rather than hypothesis: a case runs in another process (a crash must not take
the fuzzer down), which hypothesis cannot observe or shrink, and a run is bounded by time.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [p for p in (HERE, os.path.dirname(HERE)) if p not in sys.path]

from fuzz_mutators import MUTATORS, Mutation  # noqa: E402
from fuzz_runner import Worker  # noqa: E402
from fuzz_seeds import builtin_seeds, folder_seeds  # noqa: E402

REGRESSIONS = os.path.join(os.path.dirname(HERE), "tests", "fuzz_regressions")
MAX_TENSOR_BYTES = 16 << 20     # config max_tensor_bytes of every case
CASE_TIMEOUT = 10.0             # seconds a case may take before it is a hang
MEMORY_BOUND = 2 << 30          # address space a case may add to the worker's


def make_case(seeds: list[tuple[str, bytes]], seed: int, index: int,
              kinds: list[str] | None = None) -> tuple[str, Mutation]:
    """Case `index` of run `seed`: (seed model name, mutation). Sometimes two mutations stack
    (a structured one first, so the second still sees a parseable model)."""
    rng = random.Random(f"{seed}:{index}")
    kinds = sorted(kinds or MUTATORS)
    structured = [k for k in kinds if k not in ("bit_flip", "truncate", "offset_out_of_range",
                                                "length_out_of_range")]
    for _ in range(50):
        name, data = rng.choice(seeds)
        kind = rng.choice(kinds)
        first = None
        try:
            if structured and rng.random() < 0.15:
                first = MUTATORS[rng.choice(structured)](data, rng)
                if first is not None:
                    data = first.data
            mutation = MUTATORS[kind](data, rng)
        except Exception:     # noqa: BLE001 - a seed the mutator cannot parse: draw again
            continue
        if mutation is not None and mutation.data != data:
            if first is not None:
                mutation.what = f"{first.kind}: {first.what}; then {mutation.what}"
            return name, mutation
    raise RuntimeError(f"no mutation of kinds {kinds} applies to the seeds")


def _extension(data: bytes) -> str:
    return ".circle" if data[4:8] == b"CIR0" else ".tflite"


def save_finding(save_dir: str, name: str, mutation: Mutation, result: dict, seed: int,
                 index: int) -> str:
    """Write the input and a sidecar .txt; returns the model file's path."""
    os.makedirs(save_dir, exist_ok=True)
    digest = hashlib.sha1(mutation.data).hexdigest()[:12]
    path = os.path.join(save_dir, f"{mutation.kind}-{digest}{_extension(mutation.data)}")
    with open(path, "wb") as f:
        f.write(mutation.data)
    with open(os.path.splitext(path)[0] + ".txt", "w") as f:
        f.write(f"finding: {result.get('finding')} ({result.get('error', '')})\n"
                f"seed model: {name}\nmutation: {mutation.kind}: {mutation.what}\n"
                f"replay: python tools/fuzz.py --seed {seed} --case {index}\n\n"
                f"{result.get('msg', '')}\n")
    return path


def fuzz(seconds: float, seed: int = 0, extra_seed_dir: str | None = None, *,
         max_cases: int | None = None, kinds: list[str] | None = None, strict: bool = False,
         save_dir: str | None = REGRESSIONS, timeout: float = CASE_TIMEOUT,
         mem_bytes: int = MEMORY_BOUND, max_tensor_bytes: int = MAX_TENSOR_BYTES,
         start: int = 0, log=None) -> dict:
    """Fuzz for `seconds` (and at most `max_cases` cases). Returns {"cases", "findings",
    "by_kind": {mutation: cases}, "outcomes": {mutation: {outcome: n}}, "saved": [paths],
    "internal": {wrapped exception type: n}, "restarts"}. `strict`: an onert_py error that
    wraps an internal exception (a crash the runtime caught, not a check) is a finding too.
    `save_dir=None` saves nothing."""
    seeds = builtin_seeds() + folder_seeds(extra_seed_dir)
    by_kind: Counter = Counter()
    outcomes: dict[str, Counter] = {}
    internal: Counter = Counter()
    saved, findings = [], []
    deadline = time.monotonic() + seconds
    index = start
    with Worker(mem_bytes=mem_bytes) as worker:
        worker.start()
        while time.monotonic() < deadline and (max_cases is None or index - start < max_cases):
            name, mutation = make_case(seeds, seed, index, kinds)
            result = worker.run(mutation.data, max_tensor_bytes, timeout)
            if result.get("finding") == "hang":     # confirm with twice the time
                result = worker.run(mutation.data, max_tensor_bytes, 2 * timeout)
            outcome = result["status"] if result["status"] == "ok" else (
                result.get("error") if result["status"] == "refused" else result["finding"])
            if result.get("internal"):
                internal[result["internal"]] += 1
                if strict:
                    result = {**result, "status": "finding", "finding": "internal"}
                    outcome = "internal"
            by_kind[mutation.kind] += 1
            outcomes.setdefault(mutation.kind, Counter())[outcome] += 1
            if result["status"] == "finding":
                findings.append((index, mutation.kind, result.get("finding")))
                if save_dir is not None:
                    saved.append(save_finding(save_dir, name, mutation, result, seed, index))
                if log is not None:
                    print(f"FINDING case {index} ({name}, {mutation.kind}): "
                          f"{result.get('finding')} {result.get('error', '')}", file=log)
            index += 1
        restarts = worker.restarts
    return {"cases": index - start, "findings": len(findings), "by_kind": dict(by_kind),
            "outcomes": {k: dict(v) for k, v in outcomes.items()}, "saved": saved,
            "finding_cases": findings, "internal": dict(internal), "restarts": restarts}


def check_file(path: str, worker: Worker, timeout: float = CASE_TIMEOUT) -> dict:
    """Run one saved model file as a case (the regression suite)."""
    with open(path, "rb") as f:
        return worker.run(f.read(), MAX_TENSOR_BYTES, timeout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", help="extra seed models: every .tflite/.circle of DIR")
    ap.add_argument("--case", type=int, help="replay one case of --seed and print it")
    ap.add_argument("--kinds", help="comma-separated mutation kinds (default: all)")
    ap.add_argument("--strict", action="store_true",
                    help="onert_py errors wrapping an internal exception are findings too")
    ap.add_argument("--no-save", action="store_true", help="do not write regression files")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else None
    save = None if args.no_save else REGRESSIONS
    if args.case is not None:
        r = fuzz(1e9, args.seed, args.models, max_cases=1, start=args.case, kinds=kinds,
                 strict=args.strict, save_dir=save)
        name, mutation = make_case(builtin_seeds() + folder_seeds(args.models), args.seed,
                                   args.case, kinds)
        print(f"case {args.case}: {name}, {mutation.kind}: {mutation.what}\n{r['outcomes']}")
        return 1 if r["findings"] else 0
    r = fuzz(args.seconds, args.seed, args.models, kinds=kinds, strict=args.strict,
             save_dir=save, log=sys.stdout)
    print(f"cases run: {r['cases']} in {args.seconds:.0f} s (seed {args.seed}, worker "
          f"restarts {r['restarts']})")
    print("cases per kind:")
    for kind in sorted(r["by_kind"]):
        print(f"  {kind:22s} {r['by_kind'][kind]:6d}  {r['outcomes'][kind]}")
    if r["internal"]:
        print(f"onert_py errors wrapping an internal exception: {r['internal']}")
    print(f"findings: {r['findings']}")
    for path in r["saved"]:
        print(f"  saved {path}")
    return 1 if r["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
