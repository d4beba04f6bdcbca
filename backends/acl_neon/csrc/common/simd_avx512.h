// The acl_neon vector layer for AVX-512 (F/BW/DQ/VL): 16 floats, mask registers (include only
// from *_avx512.cpp; the API is described in simd_base.h).
#pragma once

#include "avx512_intrin.h"

#include <cstdint>

namespace onert_neon {
namespace simd {
namespace {

constexpr int W = 16;
constexpr int kRegs = 32;
struct V { __m512 v; };
struct M { __mmask16 m; };

inline __mmask16 lane_mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
inline V load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void store(float* p, V a) { _mm512_storeu_ps(p, a.v); }
inline V load_n(const float* p, int n) { return {_mm512_maskz_loadu_ps(lane_mask(n), p)}; }
inline void store_n(float* p, V a, int n) { _mm512_mask_storeu_ps(p, lane_mask(n), a.v); }
inline V zero() { return {_mm512_setzero_ps()}; }
inline V set1(float x) { return {_mm512_set1_ps(x)}; }
inline V add(V a, V b) { return {_mm512_add_ps(a.v, b.v)}; }
inline V sub(V a, V b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline V mul(V a, V b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline V div(V a, V b) { return {_mm512_div_ps(a.v, b.v)}; }
inline V fmadd(V a, V b, V c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline V vmax(V a, V b) { return {_mm512_max_ps(a.v, b.v)}; }
inline V vmin(V a, V b) { return {_mm512_min_ps(a.v, b.v)}; }
inline V vabs(V a) { return {_mm512_abs_ps(a.v)}; }
inline V vneg(V a) { return {_mm512_xor_ps(_mm512_set1_ps(-0.0f), a.v)}; }
inline V vsign_of(V a) { return {_mm512_and_ps(_mm512_set1_ps(-0.0f), a.v)}; }
inline V vor(V a, V b) { return {_mm512_or_ps(a.v, b.v)}; }
inline V vsqrt(V a) { return {_mm512_sqrt_ps(a.v)}; }
constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
constexpr int kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
inline V vround(V a) { return {_mm512_roundscale_ps(a.v, kNearest)}; }
inline V vfloor(V a) { return {_mm512_roundscale_ps(a.v, kDown)}; }
inline V vceil(V a) { return {_mm512_roundscale_ps(a.v, kUp)}; }
inline M gt(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M ge(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)}; }
inline M lt(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M le(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline M eq(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline M ne(V a, V b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)}; }
inline M mand(M a, M b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline V select(M m, V a, V b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline uint32_t mask_bits(M m) { return static_cast<uint32_t>(m.m); }
inline float hsum(V a) { return _mm512_reduce_add_ps(a.v); }
inline V pow2i(V n) {
  __m512i i = _mm512_add_epi32(_mm512_cvtps_epi32(n.v), _mm512_set1_epi32(127));
  return {_mm512_castsi512_ps(_mm512_slli_epi32(i, 23))};
}
// vscalefps rounds y * 2^n once, as the two-step form of the other ISAs
inline V vldexp(V y, V n) { return {_mm512_scalef_ps(y.v, n.v)}; }
inline void split_exp(V x, V& m, V& e) {
  __m512i bits = _mm512_castps_si512(x.v);
  __m512i ex = _mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(126));
  e.v = _mm512_cvtepi32_ps(ex);
  m.v = _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_and_si512(bits, _mm512_set1_epi32(0x807fffff)), _mm512_set1_epi32(0x3f000000)));
}

}  // namespace
}  // namespace simd
}  // namespace onert_neon
