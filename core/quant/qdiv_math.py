"""Fixed-point pieces of TFLite's quantized (uint8) DIV (reference_ops::DivElementwise, which
the builtin DIV runs for uint8), on int32 values held in int64 arrays:
GetReciprocal (gemmlowp's one_over_one_plus_x_for_x_in_0_1: three Newton-Raphson steps in
FixedPoint<int32, 2>), CountLeadingSignBits, and the scalar RoundingDivideByPOT as compiled for
x86, where the shift count of `x >> e` is taken mod 32 and the mask (1ll << e) - 1 is truncated
to int32 (TFLite reaches exponents above 31 for small dividends and large divisors)."""
from __future__ import annotations

import numpy as np

from .qfixed import bit_length, sat_mul_pot
from .qmath import INT32_MAX, saturating_rounding_doubling_high_mul as srdhm, wrap_int32 as wrap32

I64 = np.int64


def clz32(x) -> np.ndarray:
    """Leading zeros of non-negative int32 values (32 for 0)."""
    return 32 - bit_length(x)


def leading_sign_bits(x) -> np.ndarray:
    """CountLeadingSignBits of int32 values (31 for 0 and -1)."""
    x = np.asarray(x, I64)
    return np.where(x >= 0, clz32(x), clz32(-x - 1)) - 1


def one_over_one_plus_x(a) -> np.ndarray:
    """gemmlowp one_over_one_plus_x_for_x_in_0_1 on FixedPoint<int32, 0> raws (int32 adds
    wrap, as the compiled code does)."""
    a = np.asarray(a, I64)
    s = a + INT32_MAX
    half = np.where(s >= 0, (s + 1) // 2, -((-(s - 1)) // 2))     # (s + sign) / 2, truncated
    x = wrap32(1515870810 + srdhm(half, -1010580540))
    for _ in range(3):
        hx = srdhm(half, x)
        omx = wrap32((1 << 29) - hx)
        x = wrap32(x + sat_mul_pot(srdhm(x, omx), 2))
    return sat_mul_pot(x, 1)


def reciprocal(x) -> tuple[np.ndarray, np.ndarray]:
    """GetReciprocal(x, 31, &shift) for x >= 0: (raw FixedPoint<int32, 0> of 1 / (x / 2^shift),
    shift). x = 0 (TFLite's DCHECK, not checked in release) is computed as the x86 code does."""
    x = np.asarray(x, I64)
    hp1 = clz32(x)
    shift = 31 - hp1
    shifted = wrap32(((x << (hp1 & 31)) & 0xFFFFFFFF) - (1 << 31))
    return one_over_one_plus_x(shifted), shift


def rounding_divide_by_pot_x86(x, exponent) -> np.ndarray:
    """gemmlowp's scalar RoundingDivideByPOT(int32 x, int exponent >= 0) as compiled for x86:
    exact for exponents 0..31; above, the mask wraps to int32 and the shift count is mod 32."""
    x, e = np.asarray(x, I64), np.asarray(exponent, I64)
    mask = wrap32((np.int64(1) << np.minimum(e, 62)) - 1)
    remainder = wrap32(x & mask)
    threshold = (mask >> 1) + (x < 0)
    return (x >> (e & 31)) + (remainder > threshold)
