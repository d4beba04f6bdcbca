"""Long-run checks: memory stays flat over many runs, and sessions give back what they take.

    python tools/long_run.py                      # 10,000 runs + 1,000 create/close cycles
    python tools/long_run.py --runs 300 --cycles 100 --model my.tflite --backends cpu

`runs` mode: one Session runs the model N times on fresh random inputs; RSS (/proc, through
onert_py.rss) and tracemalloc's current/peak traced bytes are sampled every `interval` runs.
The figure that matters is the growth after warm-up: the largest sample minus the sample
taken when warm-up ended (caches, lazily compiled subgraphs and the allocator's pools settle
during warm-up).

`cycles` mode: N times create a Session on the model file, run it once and close it. Counts
open file descriptors (/proc/self/fd) before and after, without a garbage collection in
between (close() must give the model mapping back by itself), the users each backend has
left in the BackendManager, and, where the acl_cl backend loads, the PyOpenCL objects still
referenced.

The default model is generated here (conv, depthwise conv, mean, fully connected, softmax,
and a While loop, so control-flow children are compiled and released too).
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from onert_py import Session
from onert_py.core.compiler import manager
from onert_py.model_builder import ModelBuilder
from onert_py.rss import read_rss_bytes

MB = 1 << 20


def default_model() -> bytes:
    """A small CNN classifier with a While loop that scales the logits `n` times."""
    rng = np.random.default_rng(7)
    names = itertools.count()

    def w(*shape: int) -> int:
        return b.add_const(f"w{next(names)}", (rng.standard_normal(shape) * 0.3).astype(np.float32))

    b = ModelBuilder()
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    x = b.add_input("image", (1, 16, 16, 3))
    n = b.add_input("n", (), "int32")
    c = b.add_tensor("conv", (1, 8, 8, 8))
    b.add_op("CONV_2D", [x, w(8, 3, 3, 3), w(8)], [c], padding="SAME", stride_h=2, stride_w=2,
             fused_activation_function="RELU6")
    d = b.add_tensor("dw", (1, 8, 8, 8))
    b.add_op("DEPTHWISE_CONV_2D", [c, w(1, 3, 3, 8), w(8)], [d], padding="SAME",
             depth_multiplier=1, fused_activation_function="RELU")
    m = b.add_tensor("mean", (1, 8))
    b.add_op("MEAN", [d, b.add_const("axes", np.array([1, 2], np.int32))], [m], keep_dims=False)
    f = b.add_tensor("logits", (1, 5))
    b.add_op("FULLY_CONNECTED", [m, w(5, 8), w(5)], [f])
    outs = [b.add_tensor("i", (), "int32"), b.add_tensor("n_out", (), "int32"),
            b.add_tensor("scaled", (1, 5))]
    b.add_op("WHILE", [b.add_const("zero", np.int32(0)), n, f], outs,
             cond_subgraph_index=cond, body_subgraph_index=body)
    y = b.add_tensor("probs", (1, 5))
    b.add_op("SOFTMAX", [outs[2]], [y], beta=1.0)
    b.add_output(y)
    shapes = [((), "int32"), ((), "int32"), ((1, 5), "float32")]
    ci = [b.add_input(f"v{k}", s, t, subgraph=cond) for k, (s, t) in enumerate(shapes)]
    lt = b.add_tensor("lt", (), "bool", subgraph=cond)
    b.add_op("LESS", ci[:2], [lt], subgraph=cond)
    b.add_output(lt, subgraph=cond)
    bi, bn, bx = [b.add_input(f"v{k}", s, t, subgraph=body) for k, (s, t) in enumerate(shapes)]
    i2, x2 = b.add_tensor("i2", (), "int32", subgraph=body), b.add_tensor("x2", (1, 5),
                                                                         subgraph=body)
    b.add_op("ADD", [bi, b.add_const("one", np.int32(1), subgraph=body)], [i2], subgraph=body)
    b.add_op("MUL", [bx, b.add_const("k", np.float32(0.9), subgraph=body)], [x2], subgraph=body)
    for t in (i2, bn, x2):
        b.add_output(t, subgraph=body)
    return b.build()


def model_file(model: str | None) -> tuple[str, bool]:
    """A path to run: the given one, or the default model written to a temporary file (True:
    the caller deletes it)."""
    if model is not None:
        return model, False
    fd, path = tempfile.mkstemp(suffix=".tflite", prefix="onert_long_run_")
    with os.fdopen(fd, "wb") as f:
        f.write(default_model())
    return path, True


def random_inputs(sess: Session, rng: np.random.Generator) -> list[np.ndarray]:
    """Fresh inputs for every input of `sess`: floats N(0, 1), ints 0..3, bools at random."""
    out = []
    for info in sess.inputs:
        dt = np.dtype(info.dtype)
        if dt.kind == "f":
            out.append(rng.standard_normal(info.shape).astype(dt))
        elif dt.kind in "iu":
            out.append(rng.integers(0, 4, info.shape).astype(dt))
        elif dt.kind == "b":
            out.append(rng.integers(0, 2, info.shape).astype(bool))
        else:
            raise SystemExit(f"input {info.name!r} is {dt}: long_run cannot make such inputs")
    return out


@dataclass
class RunReport:
    runs: int
    warmup: int
    seconds: float
    rss_warm: int                    # bytes, when warm-up ended
    rss_end: int
    rss_max_growth: int              # largest sample after warm-up minus rss_warm
    traced_warm: int                 # tracemalloc current bytes when warm-up ended
    traced_end: int
    traced_max_growth: int
    traced_peak: int
    samples: list[tuple[int, int, int]] = field(default_factory=list)   # (run, rss, traced)


def long_run(model: str | None = None, runs: int = 10_000, warmup: int = 200,
             interval: int = 250, backends: Any = "cpu", config: Any = None,
             seed: int = 0) -> RunReport:
    """Run one session `runs` times (plus `warmup` runs first) and sample its memory."""
    path, temp = model_file(model)
    rng = np.random.default_rng(seed)
    pool = None
    try:
        with Session(path, backends=backends, config=config) as sess:
            pool = [random_inputs(sess, rng) for _ in range(16)]
            for k in range(warmup):
                sess.run(pool[k % len(pool)])
            started = tracemalloc.is_tracing()
            if not started:
                tracemalloc.start()
            try:
                return _measured(sess, pool, runs, warmup, interval)
            finally:
                if not started:
                    tracemalloc.stop()
    finally:
        if temp:
            os.unlink(path)


def _measured(sess: Session, pool: list, runs: int, warmup: int, interval: int) -> RunReport:
    tracemalloc.reset_peak()
    points = sorted({0, runs, *range(interval, runs + 1, interval)})
    table = np.zeros((len(points), 3), np.int64)    # filled in place: sampling allocates nothing
    table[0] = (0, read_rss_bytes() or 0, tracemalloc.get_traced_memory()[0])
    row = 1
    t0 = time.perf_counter()
    for k in range(1, runs + 1):
        sess.run(pool[k % len(pool)])
        if row < len(points) and k == points[row]:
            table[row, 0], table[row, 1] = k, read_rss_bytes() or 0
            table[row, 2] = tracemalloc.get_traced_memory()[0]
            row += 1
    seconds = time.perf_counter() - t0
    rss, traced = table[:row, 1], table[:row, 2]
    return RunReport(runs, warmup, seconds, int(rss[0]), int(rss[-1]), int(rss.max() - rss[0]),
                     int(traced[0]), int(traced[-1]), int(traced.max() - traced[0]),
                     tracemalloc.get_traced_memory()[1],
                     [tuple(int(v) for v in r) for r in table[:row]])


# ---------------------------------------------------------------- create/close cycles
def open_fds() -> int | None:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


def opencl_objects() -> int | None:
    """PyOpenCL objects (buffers, contexts, queues, programs, kernels, events) referenced from
    Python containers right now; None where PyOpenCL is not installed."""
    try:
        import pyopencl as cl
    except Exception:
        return None
    kinds = tuple(k for k in (getattr(cl, n, None) for n in (
        "MemoryObjectHolder", "Context", "CommandQueue", "Program", "Kernel", "Event", "SVM"))
        if isinstance(k, type))
    seen: set[int] = set()
    for obj in gc.get_objects():
        if isinstance(obj, kinds):
            seen.add(id(obj))
        for ref in gc.get_referents(obj):
            if isinstance(ref, kinds):
                seen.add(id(ref))
    return len(seen)


def acl_cl_available() -> bool:
    """Whether the acl_cl backend exists and initializes here (it is released right away)."""
    try:
        manager.load("acl_cl")
    except Exception:
        return False
    manager.release("acl_cl")
    return True


@dataclass
class CycleReport:
    sessions: int
    backends: list[str]
    seconds: float
    fds_before: int | None
    fds_after: int | None
    users_before: dict[str, int]
    users_after: dict[str, int]
    cl_before: int | None = None
    cl_after: int | None = None

    @property
    def fd_delta(self) -> int | None:
        if self.fds_before is None or self.fds_after is None:
            return None
        return self.fds_after - self.fds_before

    @property
    def cl_delta(self) -> int | None:
        if self.cl_before is None or self.cl_after is None:
            return None
        return self.cl_after - self.cl_before


def cycle(model: str | None = None, sessions: int = 1000, backends: Any = None,
          run_each: bool = True, seed: int = 0) -> CycleReport:
    """Create, run once and close `sessions` sessions; count what is left open. `backends`
    None: acl_cl then cpu where acl_cl is available, else cpu."""
    if backends is None:
        backends = ["acl_cl", "cpu"] if acl_cl_available() else ["cpu"]
    backends = backends.replace(",", ";").split(";") if isinstance(backends, str) else list(backends)
    path, temp = model_file(model)
    rng = np.random.default_rng(seed)
    try:
        with Session(path, backends=backends) as s:     # warm-up: imports, lazy caches
            s.run(random_inputs(s, rng))
        ids = ["builtin", *backends]
        users_before = {b: manager.users(b) for b in ids}
        gc.collect()
        fds_before = open_fds()
        cl_before = opencl_objects() if "acl_cl" in backends else None
        t0 = time.perf_counter()
        for _ in range(sessions):
            sess = Session(path, backends=backends)
            if run_each:
                sess.run(random_inputs(sess, rng))
            sess.close()
            del sess
        seconds = time.perf_counter() - t0
        fds_after = open_fds()              # no gc.collect() first: close() must suffice
        cl_after = opencl_objects() if "acl_cl" in backends else None
        return CycleReport(sessions, backends, seconds, fds_before, fds_after, users_before,
                           {b: manager.users(b) for b in ids}, cl_before, cl_after)
    finally:
        if temp:
            os.unlink(path)


# ---------------------------------------------------------------- command line
def print_run_report(r: RunReport) -> None:
    print(f"runs: {r.runs} after {r.warmup} warm-up runs, {r.seconds:.1f} s "
          f"({r.seconds / max(r.runs, 1) * 1e3:.3f} ms/run)")
    print(f"RSS after warm-up {r.rss_warm / MB:.1f} MiB, at the end {r.rss_end / MB:.1f} MiB, "
          f"max growth after warm-up {r.rss_max_growth / MB:.2f} MiB")
    print(f"tracemalloc: current {r.traced_warm / 1024:.1f} KiB after warm-up, "
          f"{r.traced_end / 1024:.1f} KiB at the end, max growth "
          f"{r.traced_max_growth / 1024:.1f} KiB, peak {r.traced_peak / 1024:.1f} KiB")


def print_cycle_report(c: CycleReport) -> None:
    print(f"sessions cycled: {c.sessions} on {c.backends}, {c.seconds:.1f} s")
    print(f"open fds before {c.fds_before}, after {c.fds_after}: delta {c.fd_delta}")
    print(f"backend users before {c.users_before}, after {c.users_after}")
    if c.cl_before is None:
        print("OpenCL objects: not counted (the acl_cl backend is not in use here)")
    else:
        print(f"OpenCL objects before {c.cl_before}, after {c.cl_after}: delta {c.cl_delta}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="model path (.tflite, .circle, nnpackage); default: generated")
    p.add_argument("--backends", help="backend list, e.g. 'cpu' or 'acl_cl;cpu' (runs default: "
                   "cpu; cycles default: acl_cl;cpu where acl_cl loads, else cpu)")
    p.add_argument("--runs", type=int, default=10_000)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--interval", type=int, default=250, help="runs between memory samples")
    p.add_argument("--cycles", type=int, default=1000, help="sessions to create and close")
    p.add_argument("--mode", choices=("runs", "cycles", "both"), default="both")
    a = p.parse_args(argv)
    if a.mode in ("runs", "both"):
        print_run_report(long_run(a.model, a.runs, a.warmup, a.interval, a.backends or "cpu"))
    if a.mode in ("cycles", "both"):
        print_cycle_report(cycle(a.model, a.cycles, a.backends))
    return 0


if __name__ == "__main__":
    sys.exit(main())
