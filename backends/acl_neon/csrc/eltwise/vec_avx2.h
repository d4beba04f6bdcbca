// AVX2/FMA vectors of 8 floats for the generic kernels (include only from *_avx2.cpp).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace onert_neon {
namespace eltwise {
namespace {

constexpr int W = 8;
struct V { __m256 v; };
struct M { __m256 m; };

inline V load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void store(float* p, V a) { _mm256_storeu_ps(p, a.v); }
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
inline V vround(V a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)}; }
inline V vfloor(V a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline V vceil(V a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)}; }
inline M gt(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
inline M ge(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ)}; }
inline M lt(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline M le(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline M eq(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)}; }
inline M ne(V a, V b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_NEQ_UQ)}; }
inline M mand(M a, M b) { return {_mm256_and_ps(a.m, b.m)}; }
inline V select(M m, V a, V b) { return {_mm256_blendv_ps(b.v, a.v, m.m)}; }
inline uint32_t mask_bits(M m) { return static_cast<uint32_t>(_mm256_movemask_ps(m.m)); }
// 2^n for integer-valued n in [-126, 127]
inline V pow2i(V n) {
  __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(i, 23))};
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
}  // namespace eltwise
}  // namespace onert_neon
