// Quantized SOFTMAX of 8-bit codes (int8 / uint8 input; int8, uint8 or int16 output) with the
// interpreter's optimized SoftmaxInt8LUT arithmetic (core/ops/softmax.py):
//   per row of `depth` codes: m = max byte (int8 codes offset by 0x80), e_j = table[255 - m +
//   byte_j] (float32, 256 entries), sum = e_0 + e_1 + ... in float32 left to right,
//   inv = 1 / (sum * out_scale), p_j = e_j * inv (float32, never fused with what follows),
//   round_away: round(p_j) (halves away from zero) + zp, else trunc(p_j + 0.5f) (uint8: no zp),
//   clamped to [lo, hi].
#pragma once

#include <cstdint>

namespace onert_neon {
namespace quant {

struct SoftmaxParams {
  int64_t rows, depth;
  bool x_signed;
  int out_bytes;                   // 1 (int8 / uint8 codes) or 2 (int16)
  bool round_away;                 // int8 / int16 rounding (else uint8's)
  int32_t zp, lo, hi;
  float out_scale;
  const float* table;              // 256 entries
};

// out (rows * depth items of out_bytes) from x (rows * depth 8-bit codes)
void qsoftmax(const SoftmaxParams& p, const uint8_t* x, void* out, int threads);

// rows [r0, r1), portable (the scalar arithmetic every variant reproduces)
void qsoftmax_rows_scalar(const SoftmaxParams& p, const uint8_t* x, void* out, int64_t r0,
                          int64_t r1);
#if defined(__x86_64__)
// also the AVX-512 machines' variant: the row sum is sequential and the lookups gathers, so
// wider vectors gain nothing
void qsoftmax_rows_avx2(const SoftmaxParams& p, const uint8_t* x, void* out, int64_t r0,
                        int64_t r1);
#endif

}  // namespace quant
}  // namespace onert_neon
