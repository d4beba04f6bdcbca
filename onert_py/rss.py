"""Process memory figures for onert-run: the RSS high-water mark, and a poller sampling RSS."""
from __future__ import annotations

import resource
import threading
import sys


def rusage_peak_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def read_rss_bytes() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class RssPoller:
    """Samples RSS in a daemon thread; ``peak`` is the highest sample."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.peak = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss-poll", daemon=True)

    def _loop(self) -> None:
        while True:
            rss = read_rss_bytes()
            if rss is None:
                return
            self.peak = max(self.peak, rss)
            self.samples += 1
            if self._stop.wait(self.interval):
                return

    def __enter__(self) -> "RssPoller":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
