// The acl_neon vector layer for AVX2 + FMA: 8 floats (include only from *_avx2.cpp; the API is
// described in simd_base.h).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace onert_neon {
namespace simd {
namespace {

constexpr int W = 8;
constexpr int kRegs = 16;
struct V { __m256 v; };
struct M { __m256 m; };

inline __m256i lane_mask(int n) {   // lanes < n all ones
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline V load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void store(float* p, V a) { _mm256_storeu_ps(p, a.v); }
inline V load_n(const float* p, int n) { return {_mm256_maskload_ps(p, lane_mask(n))}; }
inline void store_n(float* p, V a, int n) { _mm256_maskstore_ps(p, lane_mask(n), a.v); }
inline V zero() { return {_mm256_setzero_ps()}; }
inline V set1(float x) { return {_mm256_set1_ps(x)}; }
inline V add(V a, V b) { return {_mm256_add_ps(a.v, b.v)}; }
inline V sub(V a, V b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline V mul(V a, V b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline V div(V a, V b) { return {_mm256_div_ps(a.v, b.v)}; }
inline V fmadd(V a, V b, V c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
// a > b ? a : b and a < b ? a : b (TFLite's semantics: NaN in b comes through)
inline V vmax(V a, V b) { return {_mm256_max_ps(a.v, b.v)}; }
inline V vmin(V a, V b) { return {_mm256_min_ps(a.v, b.v)}; }
inline V vabs(V a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline V vneg(V a) { return {_mm256_xor_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline V vsign_of(V a) { return {_mm256_and_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline V vor(V a, V b) { return {_mm256_or_ps(a.v, b.v)}; }
inline V vsqrt(V a) { return {_mm256_sqrt_ps(a.v)}; }
constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
constexpr int kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
inline V vround(V a) { return {_mm256_round_ps(a.v, kNearest)}; }
inline V vfloor(V a) { return {_mm256_round_ps(a.v, kDown)}; }
inline V vceil(V a) { return {_mm256_round_ps(a.v, kUp)}; }
inline M gt(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
inline M ge(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)}; }
inline M lt(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline M le(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline M eq(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)}; }
inline M ne(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)}; }
inline M mand(M a, M b) { return {_mm256_and_ps(a.m, b.m)}; }
inline V select(M m, V a, V b) { return {_mm256_blendv_ps(b.v, a.v, m.m)}; }
inline uint32_t mask_bits(M m) { return static_cast<uint32_t>(_mm256_movemask_ps(m.m)); }
inline float hsum(V a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}
// 2^n for integer-valued n in [-126, 127]
inline V pow2i(V n) {
  __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(i, 23))};
}
// y * 2^n rounded once (see simd_base.h)
inline V vldexp(V y, V n) {
  const __m256i ni = _mm256_cvtps_epi32(n.v), h = _mm256_srai_epi32(ni, 1);
  const __m256 yh = _mm256_castsi256_ps(
      _mm256_add_epi32(_mm256_castps_si256(y.v), _mm256_slli_epi32(h, 23)));
  const __m256i e = _mm256_add_epi32(_mm256_sub_epi32(ni, h), _mm256_set1_epi32(127));
  return {_mm256_mul_ps(yh, _mm256_castsi256_ps(_mm256_slli_epi32(e, 23)))};
}
// x > 0 normal: x = m * 2^e with m in [0.5, 1)
inline void split_exp(V x, V& m, V& e) {
  __m256i bits = _mm256_castps_si256(x.v);
  __m256i ex = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126));
  e.v = _mm256_cvtepi32_ps(ex);
  m.v = _mm256_castsi256_ps(_mm256_or_si256(
      _mm256_and_si256(bits, _mm256_set1_epi32(0x807fffff)), _mm256_set1_epi32(0x3f000000)));
}

}  // namespace
}  // namespace simd
}  // namespace onert_neon
