"""Markdown rendering of benchmark results (and the machine/version header)."""
from __future__ import annotations

import datetime
import os
import platform
from typing import Any, Sequence

from .runtimes import BUILTIN, ONERT, XNNPACK, label, library_versions, parse_onert_py_key


def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo (platform.processor() as a fallback)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """Date, CPU, core counts, Python and library versions."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "machine": platform.machine(),
        "python": platform.python_version(),
        "versions": library_versions(),
    }


def header_line(info: dict[str, Any]) -> str:
    """One-line summary of :func:`machine_info`."""
    v = info["versions"]
    return (f"{info['date']} | CPU: {info['cpu']} ({info['machine']}), {info['cores']} cores "
            f"({info['usable_cores']} usable) | Python {info['python']} | numpy {v['numpy']}, "
            f"ai_edge_litert {v['ai-edge-litert']}, onert {v['onert']}, onert_py {v['onert_py']}, "
            f"threadpoolctl {v['threadpoolctl']}")


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def fmt_ms(v: float | None) -> str:
    """Milliseconds with 3 significant-ish digits."""
    if v is None:
        return "–"
    if v < 0.1:
        return f"{v:.4f}"
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 10 else f"{v:.1f}"


def fmt_ratio(num: float | None, den: float | None) -> str:
    """``num / den`` as ``1.23×`` (– when either is missing)."""
    if num is None or den is None or den <= 0:
        return "–"
    r = num / den
    return f"{r:.2f}×" if r < 100 else f"{r:.0f}×"


def fmt_diff(v: Any) -> str:
    """Max abs diff (float) or the reason it is not available (str)."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return f"n/a ({v})"
    if v == 0:
        return "0"
    return f"{v:.1e}" if v < 0.01 or v >= 1000 else f"{v:.3g}"


def _cell_ms(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "–"
    if cell.get("error"):
        return f"n/a ({cell['error']})"
    return fmt_ms(cell.get("median_ms"))


def _median(cell: dict[str, Any] | None) -> float | None:
    if not cell or cell.get("error"):
        return None
    return cell.get("median_ms")


def latency_table(threads: int, rows: dict[str, dict[str, Any]], py_keys: Sequence[str]) -> str:
    """Markdown table of one thread count: medians, ratios, correctness, sample counts."""
    single = len(py_keys) == 1
    names = {k: label(k, single) for k in py_keys}
    head = ["model"] + [f"{names[k]} ms" for k in py_keys]
    head += ["XNNPACK ms", "LiteRT builtin ms", "onert ms"]
    for k in py_keys:
        n = names[k]
        head += [f"{n}/XNNPACK", f"{n}/builtin", f"onert/{n} (speedup)"]
    head += [f"max abs diff {names[k]} vs builtin" for k in py_keys]
    head += ["samples", "other load"]
    probed = any(r.get("host_probe") for r in rows.values())
    if probed:
        head.append("host 2T probe")
    body = []
    for model, r in rows.items():
        cells = r["cells"]
        line = [model] + [_cell_ms(cells.get(k)) for k in py_keys]
        line += [_cell_ms(cells.get(XNNPACK)), _cell_ms(cells.get(BUILTIN)), _cell_ms(cells.get(ONERT))]
        for k in py_keys:
            p = _median(cells.get(k))
            line += [fmt_ratio(p, _median(cells.get(XNNPACK))), fmt_ratio(p, _median(cells.get(BUILTIN))),
                     fmt_ratio(_median(cells.get(ONERT)), p)]
        for k in py_keys:
            d = r.get("diff", {}).get(k)
            txt = fmt_diff(d)
            ref = r.get("diff_ref")
            if ref and ref != BUILTIN and not isinstance(d, str) and d is not None:
                txt += f" (vs {label(ref)})"
            line.append(txt)
        ns = sorted({c.get("n", 0) for c in cells.values() if not c.get("error")})
        line.append("/".join(str(n) for n in ns) if ns else "–")
        load = r.get("other_load")
        line.append("–" if load is None else f"{load:.2f}")
        if probed:
            hp = r.get("host_probe")
            line.append("/".join("–" if v is None else f"{v:.2f}" for v in hp) if hp else "–")
        body.append(line)
    separate = any(r.get("method") == "own processes" for r in rows.values())
    how = "each runtime in its own processes, alternating" if separate else "interleaved"
    title = f"### Latency, {threads} thread{'s' if threads != 1 else ''} (median ms, {how})"
    note = ("other load = average CPU use of other processes on the machine while the row was "
            "measured, in cores; with it near or above the free cores, that row is disturbed.")
    if separate:
        note += (" Other load here includes the timed runtime's own child processes (the "
                 "benchmark process itself is idle).")
    if probed:
        note += (" host 2T probe = a small acl_neon model's 2-thread time over its 1-thread time "
                 "(benchlib/host_probe.py), just before / just after the row: about 0.85-0.9 on "
                 "a steady host; well above 1, the host was slowing 2-thread work and the row's "
                 "ratios are suspect.")
    return title + "\n\n" + note + "\n\n" + _table(head, body)


def session_table(data: dict[str, dict[str, Any]], keys: Sequence[str], threads: int) -> str:
    """Markdown table of session creation and first-run times."""
    single = sum(parse_onert_py_key(k) is not None for k in keys) == 1
    head = ["model"]
    for k in keys:
        head += [f"{label(k, single)} create ms", f"{label(k, single)} 1st run ms"]
    body = []
    for model, row in data.items():
        line = [model]
        for k in keys:
            e = row.get(k, {})
            if e.get("error"):
                line += [f"n/a ({e['error']})", "–"]
            else:
                line += [fmt_ms(e.get("create_ms")), fmt_ms(e.get("first_run_ms"))]
        body.append(line)
    return (f"### Session creation (load + compile), median of 5, {threads} thread(s)\n\n"
            "create = constructor (LiteRT: Interpreter + allocate_tensors); 1st run = the first "
            "inference after it (lazy preparation shows up there).\n\n" + _table(head, body))


def _mb(kb: float | None) -> str:
    return "–" if kb is None else f"{kb / 1024:.1f}"


def memory_table(data: dict[str, dict[str, Any]], keys: Sequence[str], threads: int) -> str:
    """Markdown table of peak RSS (raw and minus the post-import baseline) per runtime."""
    py_keys = [k for k in keys if parse_onert_py_key(k) is not None]
    single = len(py_keys) == 1
    head = ["model"] + [f"{label(k, single)} peak / Δ MB" for k in keys]
    for k in py_keys:
        n = label(k, single)
        head += [f"{n}/XNNPACK Δ (peak)", f"{n}/builtin Δ (peak)"]
    body = []
    for model, row in data.items():
        line = [model]
        for k in keys:
            e = row.get(k, {})
            line.append(f"n/a ({e.get('error')})" if not e.get("ok")
                        else f"{_mb(e['peak_kb'])} / {_mb(e['delta_kb'])}")
        for k in py_keys:
            p = row.get(k, {})
            for ref in (XNNPACK, BUILTIN):
                q = row.get(ref, {})
                if p.get("ok") and q.get("ok"):
                    line.append(f"{fmt_ratio(p['delta_kb'], q['delta_kb'])} "
                                f"({fmt_ratio(p['peak_kb'], q['peak_kb'])})")
                else:
                    line.append("–")
        body.append(line)
    return (f"### Peak memory: fresh process per cell, load + 3 runs, {threads} thread(s)\n\n"
            "peak = high-water RSS of the child (VmHWM; see README for why not ru_maxrss), "
            "Δ = peak minus the RSS right after importing numpy and the runtime's library; "
            "ratios are of Δ (of peak in parentheses).\n\n" + _table(head, body))


def overhead_table(data: dict[str, Any]) -> str:
    """Markdown table of the per-op overhead measurement."""
    n = data.get("n_ops", 200)
    ops = "/".join(data.get("ops", ["ADD"]))
    title = (f"### Per-op overhead: chain of {n} {ops} ops on (1,{data.get('width', 4)}) float32, "
             f"{data.get('threads', 1)} thread(s)")
    if data.get("error"):
        return f"{title}\n\nn/a ({data['error']})"
    keys = list(data["runtimes"])
    single = sum(parse_onert_py_key(k) is not None for k in keys) == 1
    head = ["runtime", f"{n}-op model ms", "1-op model ms", f"µs/op (median/{n})",
            f"marginal µs/op ((t{n}−t1)/{n - 1})"]
    body = []
    for k, e in data["runtimes"].items():
        if e.get("error"):
            body.append([label(k, single), f"n/a ({e['error']})", "–", "–", "–"])
        else:
            body.append([label(k, single), fmt_ms(e["median_ms"]), fmt_ms(e["one_op_ms"]),
                         f"{e['us_per_op']:.2f}", f"{e['marginal_us_per_op']:.2f}"])
    return title + "\n\n" + _table(head, body)
