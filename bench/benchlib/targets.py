"""Issue 18's target table (bench.py --targets): per target the model, onert_py's figure,
LiteRT's, their ratio, the target and whether it is met.

``TARGETS`` is the one place the bounds live; check them against the issue's text when it
changes. The figures come from the other modes of the same run:

* ``e2e``: medians of onert_py ``sess.run(xs)`` and LiteRT's set_tensor + invoke + get_tensor
  with its default resolver (XNNPACK), at the smallest thread count (benchlib/e2e.py); the
  target bounds their ratio;
* ``overhead``: the executor's cost per op on a chain of 200 alternating ADD/MUL ops on
  (1, 64) float32 run on ``acl_neon;cpu``: (t200 - t1) / 199 from the chain and its 1-op
  model (benchlib/overhead.py), which still holds each op's own compute (an ADD or MUL of 64
  floats, a few ns natively); the target bounds onert_py's µs per op;
* ``cold``: median import + create + first run in fresh processes, onert_py over LiteRT
  (benchlib/coldstart.py); the target bounds the ratio.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .report import _table, fmt_ms, fmt_ratio
from .runtimes import XNNPACK, onert_py_key

CHAIN_OPS = ("ADD", "MUL")
CHAIN_WIDTH = 64
CHAIN_BACKENDS = "acl_neon;cpu"
COLD_MODEL = "mobilenet_v2"


@dataclass(frozen=True)
class Target:
    label: str
    kind: str          # "e2e", "overhead" or "cold"
    model: str         # e2e model name, or the cold-start model
    bound: float       # met when onert_py's figure (ratio, or µs per op) is at most this


TARGETS = (
    Target("one-op ADD, 2 x (1,8) float32", "e2e", "one_op_add", 1.5),
    Target("streaming int8 KWS (microWakeWord-like)", "e2e", "kws_stream", 2.0),
    Target("200-op ADD/MUL chain on acl_neon: overhead per op", "overhead", "chain", 0.1),
    Target("lstm_text", "e2e", "lstm_text", 2.0),
    Target("control_flow", "e2e", "control_flow", 2.0),
    Target(f"cold start {COLD_MODEL}", "cold", COLD_MODEL, 1.5),
)


def _met(value: float | None, bound: float) -> str:
    return "–" if value is None else ("yes" if value <= bound else "**no**")


def target_rows(e2e: dict[str, dict[str, Any]] | None, py_key: str,
                overhead: dict[str, Any] | None, cold: dict[str, Any] | None) -> list[dict]:
    """One dict per target: onert_py's and LiteRT's figures (ms or µs/op), the ratio, the
    value held against the bound, met (None where a figure is missing) and why not."""
    out = []
    for t in TARGETS:
        row: dict[str, Any] = {"target": t.label, "kind": t.kind, "bound": t.bound,
                               "ours": None, "litert": None, "ratio": None, "value": None}
        if t.kind == "e2e":
            cells = (e2e or {}).get(t.model, {}).get("cells", {})
            for name, key in (("ours", py_key), ("litert", XNNPACK)):
                c = cells.get(key) or {}
                row[name] = c.get("median_ms") if not c.get("error") else None
                if c.get("error"):
                    row.setdefault("why", c["error"])
            if (e2e or {}).get(t.model, {}).get("error"):
                row["why"] = e2e[t.model]["error"]
        elif t.kind == "overhead":
            rts = (overhead or {}).get("runtimes", {})
            for name, key in (("ours", onert_py_key(CHAIN_BACKENDS)), ("litert", XNNPACK)):
                e = rts.get(key, {})
                row[name] = e.get("marginal_us_per_op")
                if e.get("error"):
                    row.setdefault("why", e["error"])
        else:
            med = (cold or {}).get("medians", {})
            row["ours"] = med.get("onert_py", {}).get("total_ms")
            row["litert"] = med.get("litert", {}).get("total_ms")
            for why in (cold or {}).get("errors", {}).values():
                row.setdefault("why", why)
        if row["ours"] is not None and row["litert"]:
            row["ratio"] = row["ours"] / row["litert"]
        row["value"] = row["ours"] if t.kind == "overhead" else row["ratio"]
        row["met"] = None if row["value"] is None else row["value"] <= t.bound
        out.append(row)
    return out


def targets_table(rows: list[dict], py_key: str, threads: int) -> str:
    """Markdown of :func:`target_rows`."""
    body = []
    for r in rows:
        overhead = r["kind"] == "overhead"

        def fig(v: float | None) -> str:
            if v is None:
                return f"n/a ({r['why']})" if r.get("why") else "–"
            return f"{v:.2f} µs/op" if overhead else f"{fmt_ms(v)} ms"

        target = f"≤ {r['bound']:g} µs/op" if overhead else f"≤ {r['bound']:g}×"
        ratio = "–" if r["ratio"] is None else fmt_ratio(r["ratio"], 1.0)
        body.append([r["target"], fig(r["ours"]), fig(r["litert"]), ratio, target,
                     _met(r["value"], r["bound"])])
    head = ["model", f"onert_py ({py_key.split('[', 1)[-1].rstrip(']')})", "LiteRT (XNNPACK)",
            "ratio", "target", "met?"]
    return (f"### Issue 18 targets, {threads} thread{'s' if threads != 1 else ''}\n\n"
            "e2e rows: median `sess.run(xs)` vs LiteRT set_tensor + invoke + get_tensor; the "
            f"chain row: (t200 − t1) / 199 on {CHAIN_BACKENDS} (each op's own compute "
            "included), against XNNPACK's; cold start: median import + create + first run in "
            "fresh processes.\n\n" + _table(head, body))
