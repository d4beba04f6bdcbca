"""The integer arithmetic of the quantized unary ops that TFLite computes without a lookup table:

  HARD_SWISH (activations.cc HardSwishPrepare + reference_ops::HardSwish): int16 fixed point,
      with gemmlowp's truncating SaturatingDoublingHighMul (`sdhm16`) and the multipliers
      brought down to int16 (`downscale16`, DownScaleInt32ToInt16Multiplier): `hard_swish_params`
      and `hard_swish_q` (backends/cpu/ops/quant/qhardswish.py has the derivation).
  RSQRT int8 (elementwise.cc RsqrtEvalQuantizedInt8): `rsqrt_int8`, the fixed-point
      Newton-Raphson inverse square root of GetInvSqrtQuantizedMultiplierExp rescaled twice.

The requantizing unary kernels (RELU family, LEAKY_RELU, ABS, PRELU) take their multipliers from
qmath.quantize_multiplier_int."""
from __future__ import annotations

import numpy as np

from . import qfixed
from .qfixed import pot16, srdhm16
from .qlut_math import sqrtf
from .qmath import multiply_by_quantized_multiplier, quantize_multiplier, rounding_divide_by_pot

F32 = np.float32
I64 = np.int64


def sdhm16(a, b) -> np.ndarray:
    """TFLite's SaturatingDoublingHighMul on int16 values (no rounding, truncation)."""
    ab = np.asarray(a, I64) * np.asarray(b, I64)
    high = np.where(ab >= 0, ab >> 15, -((-ab) >> 15))
    return np.where((a == -32768) & (b == -32768), 32767, high)


def downscale16(m: int) -> int:
    """DownScaleInt32ToInt16Multiplier."""
    return 32767 if m >= (1 << 31) - 1 - (1 << 15) else (m + (1 << 15)) >> 16


def hard_swish_params(in_scale: float, out_scale: float) -> tuple[int, int, int, int]:
    """(output multiplier int16, its exponent, reluish multiplier int16, its exponent)."""
    hires = F32(F32(1.0 / 128.0) * F32(in_scale))
    out_mult = F32(hires / F32(out_scale))
    reluish_mult = F32(hires / F32(3.0 / 32768.0))
    om, oe = (int(a) for a in quantize_multiplier(float(out_mult)))
    rm, re = (int(a) for a in quantize_multiplier(float(reluish_mult)))
    return downscale16(om), oe, downscale16(rm), re


def hard_swish_q(x, in_zp: int, out_zp: int, params, dtype) -> np.ndarray:
    """reference_ops::HardSwish on integer values `x`."""
    om, oe, rm, re = params
    v = (np.asarray(x, I64) - in_zp) * 128
    pre = srdhm16(v, om)
    r = v
    if re > 0:
        r = pot16(r, re - 1)
    r = srdhm16(r, rm)
    if re > 0:
        r = pot16(r, 1)
    if re < 0:
        r = rounding_divide_by_pot(r, -re)
    r = (r + (1 << 15)) >> 1
    out = rounding_divide_by_pot(sdhm16(r, pre), -oe) + out_zp
    info = np.iinfo(dtype)
    return np.clip(out, info.min, info.max).astype(dtype)


def rsqrt_int8(x: np.ndarray, in_scale: float, in_zp: int, out_scale: float,
               out_zp: int) -> np.ndarray:
    """The int8 results for int8 inputs x (int64; results below the zero point are unused)."""
    real = 1.0 / float(F32(sqrtf(F32(in_scale)) * F32(out_scale)))
    mult, shift = (int(a) for a in quantize_multiplier(real))
    k_shift = 20
    value = x - in_zp
    inv, inv_shift = qfixed.inv_sqrt_multiplier_exp(np.maximum(value, 0))
    data = multiply_by_quantized_multiplier(np.ones_like(value), inv, inv_shift + k_shift)
    out = multiply_by_quantized_multiplier(data, mult, shift - k_shift) + out_zp
    out = np.where(value == 0, 127, np.clip(out, -128, 127))
    return out.astype(np.int8)
