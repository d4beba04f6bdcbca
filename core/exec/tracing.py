"""Chrome/Perfetto trace of op runs, in onert's naming: one B/E pair per op run, named
`$<op index> <OpName>`, on thread `<subgraph>, <backend>`, with input shapes as args (and, for
a fused op, the ops it covers).

If and While runs are events of their own that enclose the ops of the subgraphs they run. The
summary (per op type and per backend: count, total, mean, share) counts each op's *self* time,
so a While's row holds only its own overhead and the shares add up to 100%.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager


class Tracer:
    """Collects trace events for one session; `write()` saves them as a Chrome trace JSON and
    `summary()` tabulates where the time went."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.events: list[dict] = []
        self.threads: dict[str, int] = {}
        self.stats: dict[tuple[str, str], list[float]] = {}    # (op type, backend) -> [n, us]
        self._lock = threading.Lock()
        self._local = threading.local()       # per OS thread: stack of child time of open spans
        self._t0 = time.perf_counter_ns()
        self.syncs: dict[str, object] = {}       # backend id -> its config's sync (or None)

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def tid(self, name: str) -> int:
        with self._lock:
            if name not in self.threads:
                self.threads[name] = len(self.threads) + 1
            return self.threads[name]

    def sync(self, backend: str) -> None:
        """Wait for the work `backend` has queued (its config's sync()), so that an op's span
        holds its device time and not only the time to enqueue it."""
        fn = self.syncs.get(backend, self)
        if fn is self:
            from ..compiler.backend_manager import manager
            loaded = manager.get(backend)
            fn = self.syncs[backend] = loaded.config.sync if loaded else None
        if fn is not None:
            fn()

    def current(self) -> list | None:
        """The innermost span open on this thread (its child-time accumulator), or None."""
        stack = getattr(self._local, "stack", None)
        return stack[-1] if stack else None

    @contextmanager
    def span(self, name: str, thread: str, op_type: str = "", backend: str = "",
             args: dict | None = None, parent: list | None = None):
        """Trace the enclosed run as one event. Its time counts as child time of `parent` (a
        span opened on another thread: an If whose branch runs on Parallel's workers) or else
        of the span open around it on this thread."""
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        tid = self.tid(thread)
        if parent is None and stack:
            parent = stack[-1]
        mine = [0.0]
        stack.append(mine)
        start = self.now_us()
        ok = False
        try:
            yield
            ok = True
        finally:
            if ok and backend:
                self.sync(backend)    # a device backend's queued work belongs to this op
            end = self.now_us()
            stack.pop()
            self.record(name, tid, op_type, backend, args, start, end, parent, mine[0])

    def record(self, name: str, tid: int, op_type: str, backend: str, args: dict | None,
               start: float, end: float, parent: list | None, children: float = 0.0) -> None:
        """One finished event (times in us since the tracer started) on thread `tid`; its time
        counts as child time of `parent`. The native segment runner's ops come in here with the
        begin and end it measured."""
        with self._lock:
            if parent is not None:
                parent[0] += end - start
            self.events.append({"name": name, "ph": "B", "ts": start, "pid": 0, "tid": tid,
                                "args": dict(args or {})})
            self.events.append({"name": name, "ph": "E", "ts": end, "pid": 0, "tid": tid})
            s = self.stats.setdefault((op_type or name, backend), [0, 0.0])
            s[0] += 1
            s[1] += end - start - children

    def us_of_ns(self, ns: int) -> float:
        """A perf_counter_ns (CLOCK_MONOTONIC) reading, as this trace's us."""
        return (ns - self._t0) / 1000.0

    def document(self) -> dict:
        meta = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}
                for name, tid in self.threads.items()]
        meta.append({"name": "process_name", "ph": "M", "pid": 0, "tid": 0,
                     "args": {"name": "onert_py"}})
        events = sorted(self.events, key=lambda e: (e["ts"], e["ph"] == "B"))
        return {"traceEvents": meta + events, "displayTimeUnit": "ms"}

    def summary_rows(self) -> dict[str, list[tuple[str, int, float, float, float]]]:
        """{"op type": rows, "backend": rows}; a row is (name, count, total ms, mean ms, share)."""
        total = sum(us for _, us in self.stats.values()) or 1.0
        out: dict[str, list] = {}
        for kind, key in (("op type", 0), ("backend", 1)):
            agg: dict[str, list[float]] = {}
            for k, (n, us) in self.stats.items():
                a = agg.setdefault(k[key], [0, 0.0])
                a[0] += n
                a[1] += us
            out[kind] = sorted(((name, int(n), us / 1e3, us / 1e3 / n, us / total)
                                for name, (n, us) in agg.items()), key=lambda r: -r[2])
        return out

    def summary(self) -> str:
        """Markdown tables of op self-time per op type and per backend."""
        parts = []
        for kind, rows in self.summary_rows().items():
            parts.append(f"| {kind} | count | total ms | mean ms | share |\n|---|---:|---:|---:|---:|")
            parts.extend(f"| {name} | {n} | {tot:.3f} | {mean:.4f} | {share * 100:.1f}% |"
                         for name, n, tot, mean, share in rows)
            parts.append("")
        return "\n".join(parts)

    def write(self) -> str:
        """Write the trace JSON, and the summary as markdown beside it (`<trace>.summary.md`)."""
        import json                      # here: a session without tracing never needs it
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(self.document(), f)
        with open(summary_path(self.path), "w", encoding="utf-8") as f:
            f.write(self.summary())
        return self.path


def op_args(kernel) -> dict:
    """A trace event's args for one op run: its input shapes and, for a fused op
    (core/compiler/fusion.py), `covers`: the model's ops it runs ("#3 CONV_2D + #4 ...")."""
    args = {f"input{k}": str(tuple(t.shape)) for k, t in enumerate(kernel.inputs)
            if t is not None}
    covers = kernel.op.params.get("covers")
    if covers:
        args["covers"] = covers
    return args


def summary_path(trace_path: str) -> str:
    root, _ = os.path.splitext(trace_path)
    return root + ".summary.md"
