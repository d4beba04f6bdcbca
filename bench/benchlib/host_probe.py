"""A probe of how well the host runs 2-thread work right now (bench.py's rows above 1 thread).

Some hosts (the 2-core VM this project is measured on) switch, for minutes at a time, into a
mode where work split over two threads runs far slower than usual while 1-thread work does
not: four chained 7x7x960 float32 depthwise convolutions took 55 µs at 2 threads on a steady
host and 150 µs in that mode (65 µs at 1 thread). Nothing in /proc shows it (no steal time,
no other process), so bench.py times this small model at 1 and 2 threads just before and
just after each multi-thread row and reports the 2-thread time over the 1-thread time: about
0.85-0.9 on a steady host; a row whose probe is well above 1 was measured in the slow mode
and its ratios say more about the host than about the runtimes. Needs acl_neon (None
otherwise).
"""
from __future__ import annotations

import statistics
import time

import numpy as np

HW, CHANNELS, DEPTH = 7, 960, 4


def build_probe() -> bytes:
    """The probe model: DEPTH chained 3x3 DEPTHWISE_CONV_2D over HW x HW x CHANNELS."""
    from onert_py.model_builder import ModelBuilder

    rng = np.random.default_rng(0)
    mb = ModelBuilder()
    cur = mb.add_input("x", (1, HW, HW, CHANNELS))
    for i in range(DEPTH):
        w = mb.add_const(f"w{i}", rng.normal(0, 0.1, (1, 3, 3, CHANNELS)).astype(np.float32))
        b = mb.add_const(f"b{i}", np.zeros(CHANNELS, np.float32))
        out = mb.add_tensor(f"y{i}", (1, HW, HW, CHANNELS))
        mb.add_op("DEPTHWISE_CONV_2D", [cur, w, b], [out], padding="SAME", stride_w=1,
                  stride_h=1, depth_multiplier=1, fused_activation_function="RELU6")
        cur = out
    mb.add_output(cur)
    return mb.build()


class HostProbe:
    """probe() -> 2-thread over 1-thread time of the probe model, or None without acl_neon."""

    def __init__(self, seconds: float = 0.25) -> None:
        self.seconds = seconds
        self.sessions = None
        try:
            import onert_py

            model = build_probe()
            self.sessions = {t: onert_py.Session(model, backends=["acl_neon"],
                                                 config={"num_threads": t}) for t in (1, 2)}
        except Exception:  # noqa: BLE001  (no acl_neon here: no probe)
            self.sessions = None
        self.x = np.random.default_rng(1).standard_normal((1, HW, HW, CHANNELS)).astype(
            np.float32)

    def _median_us(self, threads: int) -> float:
        sess = self.sessions[threads]
        for _ in range(20):
            sess.run([self.x])
        times, end = [], time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            sess.run([self.x])
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e6

    def probe(self) -> float | None:
        if self.sessions is None:
            return None
        one = self._median_us(1)
        return self._median_us(2) / one

    def close(self) -> None:
        for s in (self.sessions or {}).values():
            s.close()
        self.sessions = None
