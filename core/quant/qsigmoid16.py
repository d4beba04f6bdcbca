"""TFLite's int16 LOGISTIC and TANH for input scales off its fixed-point path: a rescale of the
input by an integer multiplier and a rounding right shift, then linear interpolation in a
256-entry table of the logistic function (activations.cc SigmoidPrepare / TanhPrepare, int16
branch; reference_integer_ops::Logistic / Tanh on int16, which Eval runs whenever Prepare set an
input multiplier, in every kernel variant).

Prepare (`table_path_params`): unless the input scale is a power of two (CheckedLog2) whose
input_left_shift = 12 + log2(scale) is 0 (LOGISTIC) or 0 or 1 (TANH), the multiplier is
double(float(scale)) * 4096 * 3, doubled (input_left_shift + 1 each time) while it is at most
32767 / 2 and input_left_shift at most 30, then truncated to int32. The table's argument is then
x * multiplier >> input_left_shift (rounded: + 2^(shift-1) first), in steps of 1/(3 * 4096)
(+-2^17 spans +-10.7).

Eval, per element, in 32-bit integer arithmetic (`logistic16`, `tanh16`; the product wraps like
int32, the table's index is the absolute value):
  LOGISTIC: index |v| >> 9, 9 fraction bits; sigmoid(|v|) in 0.25 fixed point with 1/2 added
            (round) or, for v < 0, 1 - it with 1/2 - 1 added; >> 10;
  TANH:     index |v| >> 8, 8 fraction bits (tanh(x) = 2 sigmoid(2x) - 1); the result minus (or,
            for v < 0, from) 2^23 with 2^7 (- 1) added; >> 8.
An index at or past 255 saturates (LOGISTIC 0x7FFF << 10, TANH 0xFFFF << 8 before the final
step). The result depends only on the int16 input, so the kernels evaluate it once over all 65536
values (core/ops/elementwise_activation.py's QTanh16Base / QLogistic16Base).

The table is data: the values of `sigmoid_table_uint16` in TensorFlow Lite's
tensorflow/lite/kernels/internal/common.h ("Table of sigmoid(i/24) at 0.16 format - 256
elements"), Copyright The TensorFlow Authors, licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0). No formula is used in its place: the rounding of
its entries is TFLite's, and results must match bit for bit.
"""
from __future__ import annotations

import numpy as np

I64 = np.int64

# sigmoid_table_uint16 of TensorFlow Lite (tensorflow/lite/kernels/internal/common.h),
# Copyright The TensorFlow Authors, Apache License 2.0: sigmoid(i / 24) in 0.16 fixed point.
SIGMOID_TABLE_UINT16 = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535], dtype=np.uint16)

SATURATED_INDEX = 255        # an index at or past it saturates


def table_path_params(scale: float) -> tuple[int, int]:
    """(input_multiplier, input_left_shift) of the table path for the float32 input `scale`:
    scale * 4096 * 3 in double, doubled while at most 32767 / 2 (and the shift at most 30),
    truncated. A multiplier of 0 (scales below about 3.8e-14: TFLite then takes the fixed-point
    path with a shift it has no kernel for) or past int32 (scales above about 1.7e5: an
    undefined conversion in TFLite) has no defined result; the caller refuses those."""
    multiplier = float(np.float32(scale)) * 4096.0 * 3.0
    shift = 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        multiplier *= 2.0
    return int(multiplier), shift


def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _scaled(x, multiplier: int, left_shift: int) -> np.ndarray:
    """(x * multiplier + round) >> left_shift in int32 (the product wraps)."""
    rnd = (1 << (left_shift - 1)) if left_shift > 0 else 0
    return _wrap32(np.asarray(x, I64) * multiplier + rnd) >> left_shift


def _interpolate(a: np.ndarray, frac_bits: int, saturated: int) -> np.ndarray:
    """The table at |v| = a with `frac_bits` fraction bits: (t[i] << f) + frac * (t[i+1] - t[i])
    where i = a >> f < 255, `saturated` past it."""
    table = SIGMOID_TABLE_UINT16.astype(I64)
    idx = a >> frac_bits
    inside = idx < SATURATED_INDEX
    i = np.where(inside, idx, 0)
    lo, hi = table[i], table[i + 1]
    frac = a & ((1 << frac_bits) - 1)
    return np.where(inside, (lo << frac_bits) + frac * (hi - lo), saturated)


def logistic16(x, multiplier: int, left_shift: int) -> np.ndarray:
    """reference_integer_ops::Logistic on int16 values `x` (int64 in, int16 results as int64)."""
    v = _scaled(x, multiplier, left_shift)
    r = _interpolate(np.abs(v), 9, 0x7FFF << 10)
    r = np.where(v >= 0, r + (1 << 9), (1 << 25) - r + (1 << 9) - 1)      # uint32, >= 0
    return (((r >> 10) & 0xFFFF) ^ 0x8000) - 0x8000                         # to int16


def tanh16(x, multiplier: int, left_shift: int) -> np.ndarray:
    """reference_integer_ops::Tanh on int16 values `x` (int64 in, int16 results as int64)."""
    v = _scaled(x, multiplier, left_shift)
    r = _interpolate(np.abs(v), 8, 0xFFFF << 8)
    r = np.where(v >= 0, r - (1 << 23) + (1 << 7), -r + (1 << 23) + (1 << 7) - 1)
    return (((r >> 8) & 0xFFFF) ^ 0x8000) - 0x8000


__all__ = ["SIGMOID_TABLE_UINT16", "table_path_params", "logistic16", "tanh16"]
