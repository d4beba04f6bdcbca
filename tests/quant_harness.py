"""Helpers for the quantized op tests: full-range random integer inputs, and `check_qop`, which
compares onert_py with the TFLite interpreter in the integer domain (quantized model pieces:
builders.quant).

`max_diff` is 0 (bit-exact) unless a test says why TFLite's own kernel sets disagree there."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from onert_py import CompileError, Session

from op_harness import run_onert, with_fallback
from oracle import tflite_run


def qrand(rng: np.random.Generator, shape: Sequence[int], dtype: str,
          low: int | None = None, high: int | None = None) -> np.ndarray:
    """Uniform integers over the dtype's whole range (or [low, high])."""
    info = np.iinfo(np.dtype(dtype))
    lo = info.min if low is None else low
    hi = info.max if high is None else high
    return rng.integers(lo, hi, size=tuple(shape), endpoint=True).astype(dtype)


def assert_close_int(got: np.ndarray, expected: np.ndarray, max_diff: int, what: str) -> None:
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, interpreter {expected.shape}"
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, interpreter {expected.dtype}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=what)
        return
    diff = np.abs(got.astype(np.int64) - expected.astype(np.int64))
    worst = int(diff.max()) if diff.size else 0
    assert worst <= max_diff, (
        f"{what}: {int((diff > max_diff).sum())} of {diff.size} values differ by more than "
        f"{max_diff} (worst {worst}); first: onert_py {got.reshape(-1)[np.argmax(diff)]}, "
        f"interpreter {expected.reshape(-1)[np.argmax(diff)]}")


def check_qop(model: bytes, inputs: Sequence[np.ndarray], backends: str | Sequence[str] = "cpu",
              max_diff: int = 0) -> list[np.ndarray]:
    """Run `model` on onert_py (op_harness.run_onert: a single non-cpu backend gets cpu behind
    it, and the test skips when that backend runs none of the ops) and on the interpreter
    (builtin kernels); integer outputs equal within `max_diff` steps, float outputs within
    1e-5."""
    expected = tflite_run(model, list(inputs))
    got = run_onert(model, inputs, backends)
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert_close_int(g, e, max_diff, f"output {k} on {backends}")
    return got


def compile_error(model: bytes, backends: str = "cpu") -> str:
    """The message of the CompileError that loading `model` on `backends` must raise (a single
    backend other than cpu with cpu behind it, as op tests run it)."""
    with pytest.raises(CompileError) as info:
        Session(model, backends=with_fallback(backends))
    return str(info.value)
