"""The exact float64 rescale of the 8-bit convolutions (backends/cpu/ops/quant/f64_rescale.py)
against the int64 ConvRequant it replaces, on accumulators at and next to every rounding
boundary, and its refusal where float64 would not be exact."""
from __future__ import annotations

import numpy as np
import pytest

from onert_py.core.quant import qmath
from onert_py.core.ops.conv2d import ConvRequant
from onert_py.backends.cpu.ops.quant.f64_rescale import Float64Rescale, row_length


def rescale_both(real, bias, zp, lo, hi, dtype, acc):
    """(ConvRequant's result, Float64Rescale's result, plan) for accumulators `acc` (pixels x
    channels, float64 holding integers, bias not included)."""
    mult, shift = qmath.quantize_multiplier(np.asarray(real, np.float64))
    rq = ConvRequant(mult, shift, bias, zp, lo, hi, mode="q31")
    bound = int(np.abs(acc).max())
    plan = Float64Rescale.plan(rq, np.dtype(dtype), bound, bias)
    want = np.empty(acc.shape, dtype)
    n = acc.size
    rq(acc, want, np.empty(acc.shape, np.int64), np.empty((acc.shape[0], 0), np.int64))
    if plan is None:
        return want, None, None
    got = np.empty(acc.shape, dtype)
    f = acc.copy()
    act = plan.hook([(f, got)])
    act(f)
    assert n == got.size
    return want, got, plan


@pytest.mark.parametrize("dtype,zp,lo,hi", [("int8", -3, -128, 127), ("int8", 5, 0, 127),
                                            ("uint8", 131, 0, 255), ("uint8", 0, 10, 200)])
@pytest.mark.parametrize("seed", range(4))
def test_matches_int64_rescale_at_boundaries(dtype, zp, lo, hi, seed):
    rng = np.random.default_rng(seed)
    c = 24
    real = np.concatenate([2.0 ** -rng.integers(1, 12, c // 2),          # exact ties
                           rng.uniform(1e-4, 0.9, c - c // 2 - 1), [1.7]])  # and one > 1
    bias = rng.integers(-5000, 5000, c).astype(np.int64)
    # accumulators whose rescaled value is (within a step of) half an integer
    targets = rng.integers(-300, 300, (64, c)) + 0.5
    acc = np.round(targets / real - bias) + rng.integers(-1, 2, (64, c))
    acc = np.concatenate([acc, rng.integers(-2 ** 21, 2 ** 21, (64, c))]).astype(np.float64)
    want, got, plan = rescale_both(real, bias, zp, lo, hi, dtype, acc)
    assert plan is not None
    np.testing.assert_array_equal(got, want)


def test_refuses_beyond_float64():
    """|acc| * M beyond 2^53: the int64 path stays."""
    acc = np.array([[2.0 ** 23, -(2.0 ** 23)]])
    want, got, plan = rescale_both([0.6, 0.7], np.zeros(2, np.int64), 0, -128, 127, "int8", acc)
    assert plan is None


def test_reference_rounded_channels_are_not_taken():
    mult, shift = qmath.quantize_multiplier(np.array([0.5, 0.25]))
    rq = ConvRequant(mult, shift, np.zeros(2, np.int64), 0, -128, 127, mode="q31", split=1)
    assert Float64Rescale.plan(rq, np.dtype("int8"), 100, np.zeros(2, np.int64)) is None


@pytest.mark.parametrize("size,channels", [(96 * 12544, 96), (32 * 7, 32), (5 * 13, 13), (0, 8)])
def test_row_length(size, channels):
    L = row_length(size, channels)
    assert L % channels == 0 and (size % L == 0 if size else True)
