// C++ tests of the quantized SOFTMAX (qsoftmax.h) against a scalar reference written here.
#include <cmath>
#include <cstdint>
#include <vector>

#include "qsoftmax.h"
#include "qtest_ref.h"
#include "testing.h"

using namespace onert_neon::quant;
using qtest::Rng;

namespace {

inline float barrier(float v) {           // no fused multiply-add of the product
#if defined(__x86_64__)
  __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__("" : "+w"(v));
#endif
  return v;
}

int32_t ref_code(const SoftmaxParams& p, float prob) {
  int64_t q;
  if (p.round_away) {
    q = static_cast<int64_t>(std::round(static_cast<double>(prob))) + p.zp;
  } else {
    const float h = prob + 0.5f;
    q = static_cast<int64_t>(std::trunc(static_cast<double>(h)));
  }
  return static_cast<int32_t>(q < p.lo ? p.lo : (q > p.hi ? p.hi : q));
}

void check_softmax(bool x_signed, int out_bytes, bool round_away, int64_t rows, int64_t depth,
                   float scale_beta, float out_scale, int32_t zp, int threads, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> table(256);
  for (int v = 0; v < 256; ++v) table[255 - v] = std::exp(-scale_beta * static_cast<float>(v));
  SoftmaxParams p{};
  p.rows = rows;
  p.depth = depth;
  p.x_signed = x_signed;
  p.out_bytes = out_bytes;
  p.round_away = round_away;
  p.zp = zp;
  p.lo = out_bytes == 2 ? -32768 : (x_signed ? -128 : 0);
  p.hi = out_bytes == 2 ? 32767 : (x_signed ? 127 : 255);
  p.out_scale = out_scale;
  p.table = table.data();
  std::vector<uint8_t> x(rows * depth);
  const int64_t spread = rng.uniform(3, 255);
  for (auto& v : x) v = uint8_t(rng.uniform(0, spread));
  std::vector<uint8_t> out8(rows * depth + 1, 0xCD);
  std::vector<int16_t> out16(rows * depth + 1, 0x5A5A);
  void* out = out_bytes == 2 ? static_cast<void*>(out16.data()) : out8.data();
  qsoftmax(p, x.data(), out, threads);
  for (int64_t r = 0; r < rows; ++r) {
    int m = 0;
    for (int64_t j = 0; j < depth; ++j) {
      const int b = x[r * depth + j] ^ (x_signed ? 0x80 : 0);
      if (b > m) m = b;
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < depth; ++j)
      sum += table[255 - m + (x[r * depth + j] ^ (x_signed ? 0x80 : 0))];
    const float inv = 1.0f / (sum * out_scale);
    for (int64_t j = 0; j < depth; ++j) {
      const float e = table[255 - m + (x[r * depth + j] ^ (x_signed ? 0x80 : 0))];
      const int32_t q = ref_code(p, barrier(e * inv));
      if (out_bytes == 2)
        CHECK(out16[r * depth + j] == q);
      else
        CHECK(out8[r * depth + j] == uint8_t(q & 0xFF));
    }
  }
  if (out_bytes == 2)
    CHECK(out16[rows * depth] == 0x5A5A);
  else
    CHECK(out8[rows * depth] == 0xCD);
}

}  // namespace

NEON_TEST(qsoftmax_int8) {
  uint64_t seed = 1;
  for (int threads : {1, 2})
    for (int64_t depth : {1, 3, 7, 8, 9, 31, 32, 33, 100, 257})
      check_softmax(true, 1, true, 19, depth, 0.05f * 1.3f, 1.0f / 256, -128, threads, seed++);
}

NEON_TEST(qsoftmax_uint8) {
  uint64_t seed = 100;
  for (int threads : {1, 2})
    for (int64_t depth : {1, 5, 8, 15, 16, 17, 64, 1001})
      for (float os : {1.0f / 256, 0.02f, 0.0007f})
        check_softmax(false, 1, false, 23, depth, 0.013f, os, 0, threads, seed++);
}

NEON_TEST(qsoftmax_int16_out) {
  uint64_t seed = 200;
  for (int threads : {1, 2})
    for (int64_t depth : {2, 8, 13, 40})
      for (bool sgn : {true, false})
        check_softmax(sgn, 2, true, 11, depth, 0.2f, 1.0f / 32768, 17, threads, seed++);
}

NEON_TEST(qsoftmax_many_rows) {      // rows split across threads; few elements each
  check_softmax(true, 1, true, 5000, 3, 0.5f, 1.0f / 256, -128, 2, 7);
  check_softmax(false, 1, false, 4097, 10, 0.07f, 1.0f / 256, 0, 2, 8);
}
