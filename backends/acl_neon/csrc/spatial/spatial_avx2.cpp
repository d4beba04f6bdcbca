// AVX2 + FMA bodies of the spatial kernels: 8 float lanes, masked tails.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "spatial.h"

namespace onert_neon {
namespace {

struct V {
  using R = __m256;
  static constexpr int W = 8;
  static __m256i mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static R zero() { return _mm256_setzero_ps(); }
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
  static float hsum(R v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
};

#include "spatial_kernels.inc"

}  // namespace

void depthwise_rows_avx2(const DepthwiseParams& p, const float* x, const float* w,
                           const float* bias, float* y, int64_t r0, int64_t r1) {
  dw_rows(p, x, w, bias, y, r0, r1);
}
void pool_rows_avx2(const PoolParams& p, const float* x, float* y, int64_t r0, int64_t r1) {
  pool_rows(p, x, y, r0, r1);
}
void resize_rows_avx2(const ResizeParams& p, const float* x, float* y, int64_t r0,
                        int64_t r1) {
  resize_rows(p, x, y, r0, r1);
}
void l2_rows_avx2(const float* x, float* y, int64_t depth, int64_t r0, int64_t r1, float lo,
                    float hi) {
  l2_rows(x, y, depth, r0, r1, lo, hi);
}
void norm_apply_avx2(const float* x, float* y, int64_t count, int64_t c, const float* mean,
                       const float* scale, const float* shift, float lo, float hi) {
  norm_apply(x, y, count, c, mean, scale, shift, lo, hi);
}

}  // namespace onert_neon
#endif  // __x86_64__
