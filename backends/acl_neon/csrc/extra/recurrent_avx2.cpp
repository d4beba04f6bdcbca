// AVX2 + FMA bodies of the recurrent kernels: 8 float lanes, masked tails.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "recurrent.h"

namespace onert_neon {
namespace {

struct V {
  using R = __m256;
  using M = __m256;
  static constexpr int W = 8;
  static __m256i mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static R set1(float f) { return _mm256_set1_ps(f); }
  static R load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, R v) { _mm256_storeu_ps(p, v); }
  static R load_n(const float* p, int n) { return _mm256_maskload_ps(p, mask(n)); }
  static void store_n(float* p, R v, int n) { _mm256_maskstore_ps(p, mask(n), v); }
  static R fma(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
  static R add(R a, R b) { return _mm256_add_ps(a, b); }
  static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  static R div(R a, R b) { return _mm256_div_ps(a, b); }
  static R max(R a, R b) { return _mm256_max_ps(a, b); }
  static R min(R a, R b) { return _mm256_min_ps(a, b); }
  static M lt(R a, R b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static R select(M m, R a, R b) { return _mm256_blendv_ps(b, a, m); }
  static R round(R x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static R scale2(R y, R n) { return mul(y, pow2n(n)); }
  static R pow2n(R n) {
    __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }
};

#include "rec_kernels.inc"

}  // namespace

void gemv_avx2(const GemvArgs& a) { gemv_impl(a); }
void cell_avx2(const CellArgs& a) { cell_impl(a); }
void act_avx2(float* x, int64_t n, int act) { act_impl(x, n, act); }

}  // namespace onert_neon
#endif
