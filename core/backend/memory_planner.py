"""Memory planners: place tensors in one arena from their lifetimes (onert's Bump, FirstFit, WIC).

A request is (tensor index, size in bytes, first use, last use), uses being positions in the
subgraph's execution order. Two tensors may share bytes only if their lifetimes do not overlap.

Executors without one fixed order (Parallel) pass a `conflicts(a, b)` predicate instead of
the interval rule; `dag_conflicts` builds it from the ops' happens-before relation.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ...errors import ConfigError

ALIGN = 64


class Request(NamedTuple):
    index: int
    size: int
    first: int
    last: int


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def arena(size: int) -> np.ndarray:
    """`size` bytes (at least 1) starting on an ALIGN boundary, so that the planned offsets are
    cache-line aligned in memory too (NumPy only promises 16 bytes: vector loads of 64 bytes
    from a tensor at 16 past a line straddle two lines, and run at half the rate)."""
    size = max(size, 1)
    raw = np.empty(size + ALIGN, np.uint8)
    start = -raw.ctypes.data % ALIGN
    return raw[start:start + size]


def _overlaps(a: Request, b: Request) -> bool:
    return a.first <= b.last and b.first <= a.last


Conflicts = Callable[[Request, Request], bool]


def dag_conflicts(ancestors: list[int], uses: dict[int, int], first_write: dict[int, int],
                  live_out: set[int]) -> Conflicts:
    """The sharing rule when ops of a DAG may run in any order it allows, or at once.

    `ancestors[p]` is the bitset of ops that happen before op p, `uses[t]` the bitset of ops
    that touch tensor t, `first_write[t]` the op that writes t first, `live_out` tensors that
    must survive the subgraph. Tensor a is done before b when every op touching a happens
    strictly before b's first writer (and a is not live out); two tensors conflict unless
    one is done before the other."""
    def before(a: int, b: int) -> bool:
        p = first_write.get(b)
        u = uses.get(a, 0)
        return p is not None and u != 0 and a not in live_out and not u & ~ancestors[p]

    def conflicts(a: Request, b: Request) -> bool:
        return not (before(a.index, b.index) or before(b.index, a.index))
    return conflicts


def plan_bump(requests: list[Request], conflicts: Conflicts | None = None
              ) -> tuple[dict[int, int], int]:
    """Never reuse: each tensor gets its own bytes."""
    offsets, top = {}, 0
    for r in requests:
        offsets[r.index] = top
        top += _align(r.size)
    return offsets, top


def _place(r: Request, placed: list[tuple[int, Request]], conflicts: Conflicts) -> int:
    """Lowest offset where `r` fits without touching any placed block alive at the same time."""
    offset = 0
    for off, other in sorted((p for p in placed if conflicts(r, p[1])), key=lambda p: p[0]):
        if offset + r.size <= off:
            break
        offset = max(offset, off + _align(other.size))
    return offset


def plan_first_fit(requests: list[Request], conflicts: Conflicts | None = None
                   ) -> tuple[dict[int, int], int]:
    """Claim in order of first use; each takes the first gap among blocks still alive."""
    placed: list[tuple[int, Request]] = []
    conflicts = conflicts or _overlaps
    for r in sorted(requests, key=lambda r: (r.first, r.index)):
        placed.append((_place(r, placed, conflicts), r))
    return _result(placed)


def plan_wic(requests: list[Request], conflicts: Conflicts | None = None
             ) -> tuple[dict[int, int], int]:
    """Largest first, each placed to avoid every block whose lifetime overlaps its own."""
    placed: list[tuple[int, Request]] = []
    conflicts = conflicts or _overlaps
    for r in sorted(requests, key=lambda r: (-r.size, r.first, r.index)):
        placed.append((_place(r, placed, conflicts), r))
    return _result(placed)


def _result(placed: list[tuple[int, Request]]) -> tuple[dict[int, int], int]:
    top = max((off + _align(r.size) for off, r in placed), default=0)
    return {r.index: off for off, r in placed}, top


PLANNERS = {"Bump": plan_bump, "FirstFit": plan_first_fit, "WIC": plan_wic}


def get_planner(name: str):
    try:
        return PLANNERS[name]
    except KeyError:
        raise ConfigError(f"unknown memory planner {name!r}; valid: {', '.join(PLANNERS)}") from None
