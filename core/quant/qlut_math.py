"""Lookup tables of TFLite's quantized transcendental kernels, built as its Prepare builds them.

`value_table` / `lookup`: a function of an 8- or 16-bit value precomputed for every value and
looked up through a view of the input (no conversion); the quantized unary kernels use them.
8-bit (`lut8`): activations.cc PopulateLookupTable / common.h LUTPopulate for int8 and uint8 —
for every input value v: d = input_scale * (v - input_zp) in float32, t = f(d) in float32,
q = TfLiteRound(t * (1 / output_scale)) + output_zp (all float32), clamped.
int16 (`lut16`, `lookup16`): common.h LUTPopulate<int16_t> — 513 samples of f over the input
range [input_scale * (-32768 - zp), input_scale * (32767 - zp)] in 512 float32 steps, each
sample biased by half the interpolation error measured at the step's midpoint; the lookup
interpolates linearly between entries (index 256 + (x >> 7), weight x & 127, rounded).

f is evaluated with the C library's float32 functions (tanhf, expf, logf, erff, sqrtf, called
through ctypes) so that ties fall exactly as in the interpreter; checked exhaustively (all 256
inputs, all 65536 int16 inputs) against the interpreter for several scales and zero points.
"""
from __future__ import annotations

import ctypes
import math
from typing import Callable

import numpy as np

F = np.float32


def _cfun(name: str) -> Callable[[float], np.float32]:
    """The C library's float32 function `name`, libm looked up at its first call (importing
    ctypes.util costs a fresh process ~15 ms, and only quantized tables need libm)."""
    fn = None

    def call(x) -> np.float32:
        nonlocal fn
        if fn is None:
            import ctypes.util
            fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        return F(fn(float(x)))
    return call


tanhf, expf, logf, erff, sqrtf = (_cfun(n) for n in ("tanhf", "expf", "logf", "erff", "sqrtf"))


def round_f32(x) -> np.float32:
    """TfLiteRound on a float: halves away from zero, result kept as float32."""
    x = float(x)
    return F(math.copysign(math.floor(abs(x) + 0.5), x))


def checked_log2(x: float) -> tuple[bool, int]:
    """CheckedLog2 (kernels/internal/common.h) in float32: (is a power of two, rounded log2)."""
    log2 = F(logf(F(x)) * F(F(1) / logf(F(2))))
    rounded = round_f32(log2)
    return bool(abs(F(log2 - rounded)) < F(1e-3)), int(rounded)


def _unsigned(dtype) -> np.dtype:
    return np.dtype(f"uint{np.dtype(dtype).itemsize * 8}")


def value_table(dtype, fn: Callable[[np.ndarray], np.ndarray], out_dtype=None) -> np.ndarray:
    """fn evaluated on every value of the 8- or 16-bit `dtype`, ordered by the value's unsigned
    bit pattern, so that `lookup(table, x)` indexes it with a view of x (no conversion)."""
    u = _unsigned(dtype)
    values = np.arange(1 << (8 * u.itemsize), dtype=np.int64).astype(u).view(dtype)
    table = np.asarray(fn(values.astype(np.int64)))
    return table.astype(out_dtype or dtype)


def lookup(table: np.ndarray, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """table[x] for a table built by `value_table` over x's dtype."""
    idx = x.view(_unsigned(x.dtype))
    if out is None:
        return np.take(table, idx)
    return np.take(table, idx, out=out)


# ----------------------------------------------------------------- the float transforms
def logistic(x):
    return F(F(1) / F(F(1) + expf(-x)))


def elu(x):
    return F(expf(x) - F(1)) if x < 0 else F(x)


_SQRT1_2 = math.sqrt(0.5)
_SQRT_2_PI = F(2 / math.sqrt(math.pi) * math.sqrt(0.5))


def gelu(x):
    """0.5f * x * (1.f + erf(x * M_SQRT1_2)): the M_SQRT1_2 product is double, so is erf."""
    x = F(x)
    return F(float(F(F(0.5) * x)) * (1.0 + math.erf(float(x) * _SQRT1_2)))


def gelu_approximate(x):
    """0.5f * x * (1.f + tanh(sqrt(2/pi) * (x + 0.044715f * x^3))), all float32."""
    x = F(x)
    x3 = F(F(F(F(0.044715) * x) * x) * x)
    return F(F(F(0.5) * x) * F(F(1) + tanhf(F(_SQRT_2_PI * F(x + x3)))))


def log_or(floor: np.float32) -> Callable:
    """log(x), and `floor` (the output's lowest representable value) for x <= 0 (elementwise.cc)."""
    return lambda x: logf(x) if x > 0 else floor


def rsqrt_or(ceiling: np.float32) -> Callable:
    """1 / sqrt(x), and `ceiling` (the output's highest value) for x <= 0 (elementwise.cc)."""
    return lambda x: F(F(1) / sqrtf(x)) if x > 0 else ceiling


# ----------------------------------------------------------------- the tables
def lut8(fn: Callable, in_scale: float, in_zp: int, out_scale: float, out_zp: int,
         dtype) -> np.ndarray:
    """The 256-entry `value_table` of `dtype` (look it up with `lookup`)."""
    info = np.iinfo(np.dtype(dtype))
    inverse = F(1) / F(out_scale)

    def q(v: int) -> int:
        d = F(F(v - in_zp) * F(in_scale))
        return min(max(int(F(round_f32(F(F(fn(d)) * inverse)) + F(out_zp))), int(info.min)),
                   int(info.max))
    return value_table(dtype, lambda values: np.array([q(int(v)) for v in values]))


def lut16(fn: Callable, in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """The 513-entry int16 interpolation table (int64 array)."""
    lo, hi = -32768, 32767
    in_min, in_max = F(F(in_scale) * F(lo - in_zp)), F(F(in_scale) * F(hi - in_zp))
    out_min, out_max = F(F(out_scale) * F(lo - out_zp)), F(F(out_scale) * F(hi - out_zp))
    steps = 512
    step = F(F(in_max - in_min) / F(steps))
    half = F(step / F(2))
    inv = F(F(65536) / F(out_max - out_min))
    table = np.empty(steps + 1, np.int64)
    for i in range(steps):
        a = F(in_min + F(F(i) * step))
        val = F(fn(a))
        mid = F(fn(F(a + half)))
        nxt = F(fn(F(in_min + F(F(i + 1) * step))))
        sample = round_f32(F(val * inv))
        interpolated = round_f32(F(F(F(nxt * inv) + sample) / F(2)))
        bias = round_f32(F(F(interpolated - round_f32(F(mid * inv))) / F(2)))
        table[i] = int(min(max(float(F(sample - bias)), lo), hi))
    table[steps] = int(min(max(float(round_f32(F(F(fn(in_max)) * inv))), lo), hi))
    return table


def lookup16(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """LUTLookup for int16 inputs: linear interpolation between table entries (int64 result)."""
    x = x.astype(np.int64)
    idx = 256 + (x >> 7)
    base = table[idx]
    slope = table[idx + 1] - base
    return base + ((slope * (x & 0x7F) + 64) >> 7)
