// AVX2 rows of the quantized SOFTMAX (qsoftmax.h): vector max, the sequential float32 sum
// (its order is the interpreter's), gathered table values, rounding 8 lanes at a time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "qsoftmax.h"

namespace onert_neon {
namespace quant {

namespace {

inline uint8_t row_max(const uint8_t* row, int64_t n, uint8_t flip) {
  const __m256i f = _mm256_set1_epi8(static_cast<char>(flip));
  __m256i mv = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j));
    mv = _mm256_max_epu8(mv, _mm256_xor_si256(v, f));
  }
  __m128i h = _mm_max_epu8(_mm256_castsi256_si128(mv), _mm256_extracti128_si256(mv, 1));
  h = _mm_max_epu8(h, _mm_srli_si128(h, 8));
  h = _mm_max_epu8(h, _mm_srli_si128(h, 4));
  h = _mm_max_epu8(h, _mm_srli_si128(h, 2));
  h = _mm_max_epu8(h, _mm_srli_si128(h, 1));
  uint8_t m = static_cast<uint8_t>(_mm_cvtsi128_si32(h) & 0xFF);
  for (; j < n; ++j) {
    const uint8_t b = row[j] ^ flip;
    m = b > m ? b : m;
  }
  return m;
}

}  // namespace

void qsoftmax_rows_avx2(const SoftmaxParams& p, const uint8_t* x, void* out, int64_t r0,
                        int64_t r1) {
  const uint8_t flip = p.x_signed ? 0x80 : 0;
  const int64_t n8 = p.depth - p.depth % 8;
  const __m256 half = _mm256_set1_ps(0.5f), big = _mm256_set1_ps(1073741824.0f);
  const __m256i zp = _mm256_set1_epi32(p.round_away ? p.zp : 0);
  const __m256i lo = _mm256_set1_epi32(p.lo), hi = _mm256_set1_epi32(p.hi);
  const __m256i fl = _mm256_set1_epi32(flip);
  for (int64_t r = r0; r < r1; ++r) {
    const uint8_t* row = x + r * p.depth;
    const uint8_t m = row_max(row, p.depth, flip);
    const float* t = p.table + (255 - m);
    float sum = 0.0f;
    for (int64_t j = 0; j < p.depth; ++j) sum += t[row[j] ^ flip];
    const float inv = 1.0f / (sum * p.out_scale);
    const __m256 vinv = _mm256_set1_ps(inv);
    for (int64_t j = 0; j < n8; j += 8) {
      const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + j));
      const __m256i idx = _mm256_xor_si256(_mm256_cvtepu8_epi32(raw), fl);
      __m256 prob = _mm256_mul_ps(_mm256_i32gather_ps(t, idx, 4), vinv);
      __asm__("" : "+x"(prob));                       // no fused multiply-add below
      prob = _mm256_blendv_ps(big, prob, _mm256_cmp_ps(prob, big, _CMP_LT_OQ));
      __m256i q;
      if (p.round_away) {
        const __m256 f = _mm256_round_ps(prob, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m256 up = _mm256_cmp_ps(_mm256_sub_ps(prob, f), half, _CMP_GE_OQ);
        q = _mm256_sub_epi32(_mm256_cvttps_epi32(f), _mm256_castps_si256(up));
      } else {
        q = _mm256_cvttps_epi32(_mm256_add_ps(prob, half));
      }
      q = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(q, zp), lo), hi);
      const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
      if (p.out_bytes == 2) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<int16_t*>(out) + r * p.depth + j), w);
      } else {
        // values are in [lo, hi] of the 8-bit type: the signed or unsigned pack keeps them
        const __m128i b = p.x_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + r * p.depth + j), b);
      }
    }
    if (n8 < p.depth) {
      // the tail: the portable rows on a one-row view would redo the row; do it here
      for (int64_t j = n8; j < p.depth; ++j) {
        float prob = t[row[j] ^ flip] * inv;
        __asm__("" : "+x"(prob));
        if (!(prob < 1073741824.0f)) prob = 1073741824.0f;
        int32_t q;
        if (p.round_away) {
          const float f = static_cast<float>(static_cast<int32_t>(prob));
          q = static_cast<int32_t>(f) + (prob - f >= 0.5f ? 1 : 0) + p.zp;
        } else {
          q = static_cast<int32_t>(prob + 0.5f);
        }
        q = q < p.lo ? p.lo : (q > p.hi ? p.hi : q);
        if (p.out_bytes == 2)
          static_cast<int16_t*>(out)[r * p.depth + j] = static_cast<int16_t>(q);
        else
          static_cast<uint8_t*>(out)[r * p.depth + j] = static_cast<uint8_t>(q & 0xFF);
      }
    }
  }
}

}  // namespace quant
}  // namespace onert_neon
#endif
