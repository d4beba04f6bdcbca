// AVX2 + FMA kernel of FULLY_CONNECTED on GGML blocks (ggml_kernels.inc): the block dots with
// maddubs (u8 x s8 pairs into int16, at most 2 * 128 * 127: no saturation) and madd.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ggml.h"

namespace onert_neon {
namespace {

inline __m256i dot32(__m256i start, __m256i u, __m256i s) {
  const __m256i pairs = _mm256_maddubs_epi16(u, s);
  return _mm256_add_epi32(start, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
}

#include "ggml_kernels.inc"

}  // namespace

void ggml_fc_cols_avx2(const GgmlFcArgs& a, int64_t n0, int64_t n1) { cols_any(a, n0, n1); }

}  // namespace onert_neon
#endif  // __x86_64__
