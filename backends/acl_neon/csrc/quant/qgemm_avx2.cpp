// AVX2 kernel of the quantized GEMM: the 8-bit operands widened to int16 and multiplied with
// vpmaddwd (exact: |products| < 2^15 * 2^8, pairs summed in int32).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qgemm.h"

namespace onert_neon {
namespace quant {

namespace {

// MR rows x one block of 16 channels. Per 4-deep step the block is 4 groups of 16 bytes (4
// channels x 4 depths); a group widened to int16 times the row's 4 activations (repeated)
// gives int32 lanes [c0 k01, c0 k23, c1 k01, ...]: adjacent lanes are summed at the end.
template <int MR>
inline void micro(const uint8_t* a, int64_t kp, const int8_t* b, int32_t* c, int64_t ldc) {
  __m256i acc[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < 4; ++g) acc[r][g] = _mm256_setzero_si256();
  for (int64_t q = 0; q < kp; q += 4) {
    __m256i w[4];
    for (int g = 0; g < 4; ++g)
      w[g] = _mm256_cvtepi8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + q * kNB + g * 16)));
    for (int r = 0; r < MR; ++r) {
      int32_t v;
      __builtin_memcpy(&v, a + r * kp + q, 4);
      __m256i av = _mm256_broadcastq_epi64(_mm_cvtepu8_epi16(_mm_cvtsi32_si128(v)));
      for (int g = 0; g < 4; ++g)
        acc[r][g] = _mm256_add_epi32(acc[r][g], _mm256_madd_epi16(av, w[g]));
    }
  }
  for (int r = 0; r < MR; ++r) {
    // hadd pairs: [c0 c1 | c2 c3] per group, interleaved across 128-bit halves
    __m256i s01 = _mm256_hadd_epi32(acc[r][0], acc[r][1]);   // c0 c1 c4 c5 | c2 c3 c6 c7
    __m256i s23 = _mm256_hadd_epi32(acc[r][2], acc[r][3]);   // c8 c9 c12 c13 | c10 c11 c14 c15
    const __m256i perm = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc),
                        _mm256_permutevar8x32_epi32(s01, perm));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc + 8),
                        _mm256_permutevar8x32_epi32(s23, perm));
  }
}

}  // namespace

void gemm_u8s8_avx2(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                    int64_t nblocks, int32_t* c, int64_t ldc) {
  for (int64_t blk = 0; blk < nblocks; ++blk) {
    const int8_t* bb = b + blk * kNB * kp;
    int32_t* cb = c + blk * kNB;
    int64_t r = 0;
    for (; r + 3 <= rows; r += 3) micro<3>(a + r * kp, kp, bb, cb + r * ldc, ldc);
    for (; r < rows; ++r) micro<1>(a + r * kp, kp, bb, cb + r * ldc, ldc);
  }
}

}  // namespace quant
}  // namespace onert_neon
#endif
