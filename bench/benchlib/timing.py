"""Interleaved latency measurement: one run of every runtime per round, many rounds.

Interleaving (with the starting runtime rotated every round) spreads slow drifts of the
machine - frequency scaling, other processes, thermal state - evenly over all columns,
so their ratios stay meaningful even when absolute numbers move.

With more than one thread per runtime, runtimes disturb each other when interleaved run
by run: a thread pool keeps spinning for a while after its run (OpenBLAS, which numpy and
so onert_py use, spins ~0.1 s) and steals the cores from the next runtime, and a pool that
went to sleep wakes up slowly. For those tables a round therefore gives each runtime a
short untimed "switch warmup" before a small block of timed runs (``RoundPolicy``).
"""
from __future__ import annotations

import gc
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .common import short_reason, summarize_ns
from .runtimes import Runner


@dataclass
class RoundPolicy:
    """How many timed rounds to run, and what one round is.

    A round gives every runtime, in turn, ``switch_warm_s`` seconds of untimed runs (at
    least one run; none when 0) and then ``block`` timed runs. With ``rounds`` set, exactly
    that many rounds. Otherwise automatic: enough that every cell has ``min_samples``
    samples or ``min_cell_s`` seconds of samples, more while a round is cheap (up to
    ``target_s`` of measuring, at most ``max_rounds`` samples), and never past ``max_s``
    seconds once every cell has ``floor_samples`` samples.
    """

    rounds: int | None = None
    min_samples: int = 20
    min_cell_s: float = 2.0
    target_s: float = 2.0
    max_rounds: int = 300
    max_s: float = 40.0
    floor_samples: int = 5
    switch_warm_s: float = 0.0
    block: int = 1

    def round_cost_ns(self, est_ns: Sequence[float]) -> float:
        """Estimated duration of one round (ns)."""
        warm = self.switch_warm_s * 1e9
        return sum(self.block * t + (max(warm, t) if warm > 0 else 0.0) for t in est_ns)

    def planned(self, est_ns: Sequence[float]) -> int:
        """Rounds to run given estimated per-run latencies (ns) of each cell."""
        if self.rounds is not None:
            return max(1, self.rounds)
        if not est_ns:
            return 0
        block = max(1, self.block)
        needed = max(min(self.min_samples, math.ceil(self.min_cell_s * 1e9 / max(t, 1.0)))
                     for t in est_ns)
        by_time = int(self.target_s * 1e9 // max(self.round_cost_ns(est_ns), 1.0)) * block
        samples = max(self.floor_samples, min(self.max_rounds, max(needed, by_time)))
        return math.ceil(samples / block)


@dataclass
class Cell:
    """Result of one runtime on one model at one thread count."""

    key: str
    samples_ns: list[int] = field(default_factory=list)
    warmup_ns: list[int] = field(default_factory=list)
    outputs: list[np.ndarray] | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the cell has samples and no error."""
        return self.error is None and bool(self.samples_ns)

    @property
    def median_ms(self) -> float | None:
        """Median latency in ms, None when unavailable."""
        return summarize_ns(self.samples_ns)["median_ms"] if self.ok else None

    def as_dict(self) -> dict:
        """JSON-friendly summary."""
        d: dict = {"key": self.key, "error": self.error}
        if self.samples_ns:
            d.update(summarize_ns(self.samples_ns))
        if self.warmup_ns:
            d["first_run_ms"] = self.warmup_ns[0] / 1e6
        return d


def _copy_outputs(outs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.array(o, copy=True) for o in outs]


def measure_interleaved(runners: dict[str, Runner], inputs: Sequence[np.ndarray],
                        warmup: int, policy: RoundPolicy,
                        progress: bool = False) -> dict[str, Cell]:
    """Warm up every runner (``warmup`` round-robin rounds, keeping the first outputs for
    correctness checks), then time interleaved rounds with ``time.perf_counter_ns``.

    A runner that raises is dropped from the rounds and its cell carries the reason.
    """
    cells = {k: Cell(k) for k in runners}
    live = list(runners)

    def one(key: str, keep_outputs: bool) -> int | None:
        runner = runners[key]
        try:
            t0 = time.perf_counter_ns()
            outs = runner.run(inputs)
            t1 = time.perf_counter_ns()
        except Exception as e:  # noqa: BLE001
            cells[key].error = short_reason(e)
            live.remove(key)
            return None
        if keep_outputs:
            cells[key].outputs = _copy_outputs(outs)
        return t1 - t0

    for w in range(max(1, warmup)):
        for key in list(live):
            dt = one(key, keep_outputs=(w == 0))
            if dt is not None:
                cells[key].warmup_ns.append(dt)

    est = []
    for key in live:
        ws = cells[key].warmup_ns
        est.append(float(np.median(ws[1:] if len(ws) > 1 else ws)))
    rounds = policy.planned(est)
    if progress:
        print(f"    {rounds} rounds x {policy.block} timed run(s), est. "
              f"{policy.round_cost_ns(est) * rounds / 1e9:.1f} s", file=sys.stderr, flush=True)

    gc.collect()
    start = time.perf_counter()
    for r in range(rounds):
        if not live:
            break
        shift = r % len(live)
        for key in live[shift:] + live[:shift]:
            if policy.switch_warm_s > 0:
                t_warm = time.perf_counter()
                while one(key, keep_outputs=False) is not None:
                    if time.perf_counter() - t_warm >= policy.switch_warm_s:
                        break
            for _ in range(max(1, policy.block)):
                dt = one(key, keep_outputs=False) if key in live else None
                if dt is not None:
                    cells[key].samples_ns.append(dt)
        if (policy.rounds is None and time.perf_counter() - start > policy.max_s
                and (r + 1) * policy.block >= policy.floor_samples):
            if progress:
                print(f"    stopped after {r + 1} rounds (time cap {policy.max_s:.0f} s)",
                      file=sys.stderr, flush=True)
            break
    return cells
