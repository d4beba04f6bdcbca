// AVX-512 bodies of the recurrent kernels: 16 float lanes, mask-register tails.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "recurrent.h"

namespace onert_neon {
namespace {

struct V {
  using R = __m512;
  using M = __mmask16;
  static constexpr int W = 16;
  static __mmask16 mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
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
  static M lt(R a, R b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static R select(M m, R a, R b) { return _mm512_mask_blend_ps(m, b, a); }
  static R round(R x) {
    return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static R scale2(R y, R n) { return _mm512_scalef_ps(y, n); }
};

#include "rec_kernels.inc"

}  // namespace

void gemv_avx512(const GemvArgs& a) { gemv_impl(a); }
void cell_avx512(const CellArgs& a) { cell_impl(a); }
void act_avx512(float* x, int64_t n, int act) { act_impl(x, n, act); }

}  // namespace onert_neon
#endif
