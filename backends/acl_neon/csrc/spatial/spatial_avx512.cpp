// AVX-512 bodies of the spatial kernels: 16 float lanes, masked tails.
#if defined(__x86_64__)
// GCC 12 warns about _mm512_undefined_ps inside max/min intrinsics (a known false positive)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "spatial.h"

namespace onert_neon {
namespace {

struct V {
  using R = __m512;
  static constexpr int W = 16;
  static __mmask16 mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static R zero() { return _mm512_setzero_ps(); }
  static R set1(float f) { return _mm512_set1_ps(f); }
  static R load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, R v) { _mm512_storeu_ps(p, v); }
  static R load_n(const float* p, int n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  static void store_n(float* p, R v, int n) { _mm512_mask_storeu_ps(p, mask(n), v); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
  static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  static R div(R a, R b) { return _mm512_div_ps(a, b); }
  static R max(R a, R b) { return _mm512_max_ps(a, b); }
  static R min(R a, R b) { return _mm512_min_ps(a, b); }
  static float hsum(R v) { return _mm512_reduce_add_ps(v); }
};

#include "spatial_kernels.inc"

}  // namespace

void depthwise_rows_avx512(const DepthwiseParams& p, const float* x, const float* w,
                           const float* bias, float* y, int64_t r0, int64_t r1) {
  dw_rows(p, x, w, bias, y, r0, r1);
}
void pool_rows_avx512(const PoolParams& p, const float* x, float* y, int64_t r0, int64_t r1) {
  pool_rows(p, x, y, r0, r1);
}
void resize_rows_avx512(const ResizeParams& p, const float* x, float* y, int64_t r0,
                        int64_t r1) {
  resize_rows(p, x, y, r0, r1);
}
void l2_rows_avx512(const float* x, float* y, int64_t depth, int64_t r0, int64_t r1, float lo,
                    float hi) {
  l2_rows(x, y, depth, r0, r1, lo, hi);
}
void norm_apply_avx512(const float* x, float* y, int64_t count, int64_t c, const float* mean,
                       const float* scale, const float* shift, float lo, float hi) {
  norm_apply(x, y, count, c, mean, scale, shift, lo, hi);
}

}  // namespace onert_neon
#endif  // __x86_64__
