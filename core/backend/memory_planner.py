"""Memory planners: place tensors in one arena from their lifetimes (onert's Bump, FirstFit, WIC).

A request is (tensor index, size in bytes, first use, last use), uses being positions in the
subgraph's execution order. Two tensors may share bytes only if their lifetimes do not overlap.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError

ALIGN = 64


@dataclass(frozen=True)
class Request:
    index: int
    size: int
    first: int
    last: int


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _overlaps(a: Request, b: Request) -> bool:
    return a.first <= b.last and b.first <= a.last


def plan_bump(requests: list[Request]) -> tuple[dict[int, int], int]:
    """Never reuse: each tensor gets its own bytes."""
    offsets, top = {}, 0
    for r in requests:
        offsets[r.index] = top
        top += _align(r.size)
    return offsets, top


def _place(r: Request, placed: list[tuple[int, Request]]) -> int:
    """Lowest offset where `r` fits without touching any placed block alive at the same time."""
    offset = 0
    for off, other in sorted((p for p in placed if _overlaps(r, p[1])), key=lambda p: p[0]):
        if offset + r.size <= off:
            break
        offset = max(offset, off + _align(other.size))
    return offset


def plan_first_fit(requests: list[Request]) -> tuple[dict[int, int], int]:
    """Claim in order of first use; each takes the first gap among blocks still alive."""
    placed: list[tuple[int, Request]] = []
    for r in sorted(requests, key=lambda r: (r.first, r.index)):
        placed.append((_place(r, placed), r))
    return _result(placed)


def plan_wic(requests: list[Request]) -> tuple[dict[int, int], int]:
    """Largest first, each placed to avoid every block whose lifetime overlaps its own."""
    placed: list[tuple[int, Request]] = []
    for r in sorted(requests, key=lambda r: (-r.size, r.first, r.index)):
        placed.append((_place(r, placed), r))
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
