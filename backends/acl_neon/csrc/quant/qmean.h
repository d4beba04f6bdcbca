// Quantized 8-bit MEAN over one contiguous block of axes (input viewed as [outer][count][inner],
// reduced over `count`), with TFLite's exact integer rescale (core/ops/reduce.py):
//   hw (optimized Mean4D): acc = sum; the first `vec` channels of each row:
//     (SRDHM(wrap32(acc << left), m) + ((1 << right) >> 1)) >> right, the rest
//     MultiplyByQuantizedMultiplier(acc, m, shift); then + offset, clamped to [lo, hi]
//   reference (QuantizedMeanOrSum): MultiplyByQuantizedMultiplier(acc - offset, m, shift)
//     + out_zp, clamped
// (left = max(shift, 0), right = max(-shift, 0)). count * 510 < 2^31 (checked by the binding).
#pragma once

#include <cstdint>

namespace onert_neon {
namespace quant {

struct MeanParams {
  int64_t outer, count, inner;
  bool x_signed, hw;
  int32_t m, shift;
  int64_t offset;
  int32_t out_zp, lo, hi;
  int64_t vec;                     // hw: channels rescaled by the vector form
};

void qmean(const MeanParams& p, const uint8_t* x, uint8_t* out, int threads);

}  // namespace quant
}  // namespace onert_neon
