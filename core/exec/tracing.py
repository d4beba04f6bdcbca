"""Chrome/Perfetto trace of op runs, in onert's naming: one B/E pair per op run, named
`$<op index> <OpName>`, on thread `<subgraph>, <backend>`, with input shapes as args."""
from __future__ import annotations

import json
import os
import threading
import time


class Tracer:
    """Collects trace events for one session; `write()` saves them as a Chrome trace JSON."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.events: list[dict] = []
        self.threads: dict[str, int] = {}
        self._lock = threading.Lock()
        self._t0 = time.perf_counter_ns()

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def tid(self, name: str) -> int:
        with self._lock:
            if name not in self.threads:
                self.threads[name] = len(self.threads) + 1
            return self.threads[name]

    def span(self, name: str, thread: str, start_us: float, end_us: float, args: dict) -> None:
        tid = self.tid(thread)
        self.events.append({"name": name, "ph": "B", "ts": start_us, "pid": 0, "tid": tid,
                            "args": args})
        self.events.append({"name": name, "ph": "E", "ts": end_us, "pid": 0, "tid": tid})

    def document(self) -> dict:
        meta = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}
                for name, tid in self.threads.items()]
        meta.append({"name": "process_name", "ph": "M", "pid": 0, "tid": 0,
                     "args": {"name": "onert_py"}})
        return {"traceEvents": meta + self.events, "displayTimeUnit": "ms"}

    def write(self) -> str:
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(self.document(), f)
        return self.path
