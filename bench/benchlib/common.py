"""Shared helpers: input specs, random inputs, stderr capture, statistics, reasons."""
from __future__ import annotations

import contextlib
import os
import signal
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

#: Fixed seed of every random input, so that all runtimes (and all runs) see the same data.
INPUT_SEED = 20240521


class Unavailable(Exception):
    """A runtime cannot run a model (import error, load error, crash...); ``str()`` is the reason."""


@dataclass(frozen=True)
class InputSpec:
    """Name, static shape and dtype of one model input."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def describe(self) -> str:
        """Short text such as ``float32[1,224,224,3]``."""
        return f"{self.dtype.name}[{','.join(str(d) for d in self.shape)}]"


def make_inputs(specs: Sequence[InputSpec], seed: int = INPUT_SEED) -> list[np.ndarray]:
    """Random arrays for ``specs``: floats in [-1, 1), 8-bit ints over their full range,
    other ints in 0..63 (valid token ids / small counts), bools at random."""
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    for spec in specs:
        shape = tuple(max(int(d), 1) for d in spec.shape)
        dt = np.dtype(spec.dtype)
        if dt.kind == "f":
            arr = rng.uniform(-1.0, 1.0, size=shape).astype(dt)
        elif dt.kind in "iu" and dt.itemsize == 1:
            info = np.iinfo(dt)
            arr = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dt)
        elif dt.kind in "iu":
            arr = rng.integers(0, 63, size=shape, endpoint=True).astype(dt)
        elif dt.kind == "b":
            arr = rng.integers(0, 1, size=shape, endpoint=True).astype(bool)
        else:
            raise Unavailable(f"no random input generator for dtype {dt}")
        arrays.append(np.array(arr, dtype=dt, order="C", ndmin=len(shape)))
    return arrays


def to_np_dtype(dt: object) -> np.dtype:
    """numpy dtype of a dtype-like value (numpy dtype/type, name string, or an enum-like
    object with a ``name`` / ``numpy_dtype`` attribute)."""
    for cand in (dt, getattr(dt, "numpy_dtype", None), getattr(dt, "np_dtype", None),
                 str(getattr(dt, "name", "")).lower() or None, str(dt).lower().split(".")[-1]):
        if cand is None:
            continue
        try:
            return np.dtype(cand)
        except TypeError:
            continue
    raise TypeError(f"not a dtype: {dt!r}")


def to_shape(shape: Sequence[object]) -> tuple[int, ...]:
    """Tuple of ints; unknown dimensions (None) become -1."""
    return tuple(-1 if d is None else int(d) for d in shape)


def specs_match(a: Sequence[InputSpec], b: Sequence[InputSpec]) -> str | None:
    """None when both spec lists agree in shapes (-1 matches anything) and dtypes,
    else what differs."""
    if len(a) != len(b):
        return f"{len(a)} inputs vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        same_rank = len(x.shape) == len(y.shape)
        same_dims = same_rank and all(p == q or p < 0 or q < 0 for p, q in zip(x.shape, y.shape))
        if not same_dims or np.dtype(x.dtype) != np.dtype(y.dtype):
            return f"input {i}: {x.describe()} vs {y.describe()}"
    return None


def short_reason(err: BaseException | str, limit: int = 90) -> str:
    """One line, at most ``limit`` characters, safe inside a markdown table cell."""
    if isinstance(err, BaseException):
        name = type(err).__name__
        library_error = type(err).__module__ not in ("builtins", "__main__")
        if isinstance(err, Unavailable) or (str(err) and (name in _PLAIN_ERRORS or library_error)):
            text = str(err)
        else:
            text = f"{name}: {err}" if str(err) else name
    else:
        text = err
    line = " ".join(text.split()).replace("|", "/")
    for noise in _NOISE:
        line = line.replace(noise, "")
    if len(line) > limit and ". " in line[:limit]:
        line = line[: line.index(". ") + 1]
    return line if len(line) <= limit else line[: limit - 1] + "…"


#: Exception types whose name adds nothing to their message.
_PLAIN_ERRORS = {"RuntimeError", "OnertError", "Exception", "ValueError"}
#: Boilerplate removed from reasons.
_NOISE = (" See instructions: https://www.tensorflow.org/lite/guide/ops_custom",
          "Node number ", "Session preparation failed: ", "Inference execution failed: ")


def signal_name(returncode: int) -> str:
    """``SIGSEGV`` for -11, ``exit 3`` for 3."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit {returncode}"


@contextlib.contextmanager
def captured_stderr(enabled: bool = True) -> Iterator[list[str]]:
    """Redirect file descriptor 2 (native libraries print there) into a buffer.

    Yields a list that receives the captured lines when the block ends.
    """
    lines: list[str] = []
    if not enabled:
        yield lines
        return
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield lines
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", "replace")
            lines.extend(ln for ln in text.splitlines() if ln.strip())


def interesting_stderr(lines: Sequence[str]) -> str | None:
    """The most informative native message among captured lines (skips INFO chatter)."""
    keep = [ln.strip() for ln in lines
            if ln.strip() and not ln.startswith("INFO:") and "Traceback" not in ln
            and not ln.startswith("  ")]
    return keep[-1] if keep else None


class LoadMeter:
    """CPU load of *other* processes while a block runs, in cores (Linux /proc/stat).

    ``other = (machine busy CPU time - this process's CPU time) / wall time``; it shows
    when a measurement shared the machine with something else (tests, builds...)."""

    def __init__(self) -> None:
        self._start: tuple[float, float, float] | None = None

    @staticmethod
    def _sample() -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat", encoding="ascii") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        hz = os.sysconf("SC_CLK_TCK")
        busy = (sum(fields[:8]) - fields[3] - fields[4]) / hz  # all but idle and iowait
        t = os.times()
        return busy, t.user + t.system, time.perf_counter()

    def start(self) -> "LoadMeter":
        """Begin a measurement window."""
        self._start = self._sample()
        return self

    def stop(self) -> float | None:
        """Other processes' average CPU use (cores) since :meth:`start`, None if unknown."""
        end = self._sample()
        if self._start is None or end is None or end[2] - self._start[2] <= 0:
            return None
        busy = end[0] - self._start[0]
        own = end[1] - self._start[1]
        return max(0.0, (busy - own) / (end[2] - self._start[2]))


def wait_for_idle(max_s: float, threshold: float = 0.25, window: float = 0.5) -> float | None:
    """Sleep in ``window``-second steps until other processes use less than ``threshold``
    cores, or ``max_s`` seconds have passed; returns the last load seen."""
    deadline = time.perf_counter() + max_s
    load = None
    while time.perf_counter() < deadline:
        meter = LoadMeter().start()
        time.sleep(window)
        load = meter.stop()
        if load is None or load < threshold:
            break
    return load


def summarize_ns(samples: Sequence[int]) -> dict[str, float]:
    """Median, mean, min, p10, p90 (ms) and count of latency samples in nanoseconds."""
    if not samples:
        return {"n": 0}
    ms = sorted(s / 1e6 for s in samples)

    def pct(p: float) -> float:
        return ms[min(len(ms) - 1, max(0, round(p * (len(ms) - 1))))]

    return {
        "n": len(ms),
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "min_ms": ms[0],
        "p10_ms": pct(0.10),
        "p90_ms": pct(0.90),
    }


def max_abs_diff(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float | str:
    """Largest |a - b| over all outputs (integers compared in raw units), or why not comparable."""
    if len(a) != len(b):
        return f"{len(a)} outputs vs {len(b)}"
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        x = np.asarray(x)
        y = np.asarray(y)
        if x.shape != y.shape:
            if x.size == y.size:
                x = x.reshape(y.shape)
            else:
                return f"output {i} shape {x.shape} vs {y.shape}"
        if x.size == 0:
            continue
        d = np.abs(x.astype(np.float64) - y.astype(np.float64))
        if np.isnan(d).any():
            nan_x, nan_y = np.isnan(x.astype(np.float64)), np.isnan(y.astype(np.float64))
            if not np.array_equal(nan_x, nan_y):
                return float("nan")
            d = np.where(nan_x, 0.0, d)
        worst = max(worst, float(d.max()))
    return worst
