// Baseline vectors for the generic kernels: SSE2 (x86-64 baseline), NEON (aarch64), or one
// float elsewhere. Included only from eltwise.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__aarch64__)
#include <arm_neon.h>
#elif defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace onert_neon {
namespace eltwise {
namespace {

#if defined(__aarch64__)
constexpr int W = 4;
struct V { float32x4_t v; };
struct M { uint32x4_t m; };

inline V load(const float* p) { return {vld1q_f32(p)}; }
inline void store(float* p, V a) { vst1q_f32(p, a.v); }
inline V set1(float x) { return {vdupq_n_f32(x)}; }
inline V add(V a, V b) { return {vaddq_f32(a.v, b.v)}; }
inline V sub(V a, V b) { return {vsubq_f32(a.v, b.v)}; }
inline V mul(V a, V b) { return {vmulq_f32(a.v, b.v)}; }
inline V div(V a, V b) { return {vdivq_f32(a.v, b.v)}; }
inline V fmadd(V a, V b, V c) { return {vfmaq_f32(c.v, a.v, b.v)}; }
inline V vmax(V a, V b) { return {vbslq_f32(vcgtq_f32(a.v, b.v), a.v, b.v)}; }
inline V vmin(V a, V b) { return {vbslq_f32(vcltq_f32(a.v, b.v), a.v, b.v)}; }
inline V vabs(V a) { return {vabsq_f32(a.v)}; }
inline V vneg(V a) { return {vnegq_f32(a.v)}; }
inline V vsign_of(V a) {
  return {vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a.v), vdupq_n_u32(0x80000000u)))};
}
inline V vor(V a, V b) {
  return {vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a.v), vreinterpretq_u32_f32(b.v)))};
}
inline V vsqrt(V a) { return {vsqrtq_f32(a.v)}; }
inline V vround(V a) { return {vrndnq_f32(a.v)}; }
inline V vfloor(V a) { return {vrndmq_f32(a.v)}; }
inline V vceil(V a) { return {vrndpq_f32(a.v)}; }
inline M gt(V a, V b) { return {vcgtq_f32(a.v, b.v)}; }
inline M ge(V a, V b) { return {vcgeq_f32(a.v, b.v)}; }
inline M lt(V a, V b) { return {vcltq_f32(a.v, b.v)}; }
inline M le(V a, V b) { return {vcleq_f32(a.v, b.v)}; }
inline M eq(V a, V b) { return {vceqq_f32(a.v, b.v)}; }
inline M ne(V a, V b) { return {vmvnq_u32(vceqq_f32(a.v, b.v))}; }
inline M mand(M a, M b) { return {vandq_u32(a.m, b.m)}; }
inline V select(M m, V a, V b) { return {vbslq_f32(m.m, a.v, b.v)}; }
inline uint32_t mask_bits(M m) {
  const uint32_t w[4] = {1, 2, 4, 8};
  return vaddvq_u32(vandq_u32(m.m, vld1q_u32(w)));
}
inline V pow2i(V n) {
  int32x4_t i = vaddq_s32(vcvtnq_s32_f32(n.v), vdupq_n_s32(127));
  return {vreinterpretq_f32_s32(vshlq_n_s32(i, 23))};
}
inline void split_exp(V x, V& m, V& e) {
  uint32x4_t bits = vreinterpretq_u32_f32(x.v);
  int32x4_t ex = vsubq_s32(vreinterpretq_s32_u32(vshrq_n_u32(bits, 23)), vdupq_n_s32(126));
  e.v = vcvtq_f32_s32(ex);
  m.v = vreinterpretq_f32_u32(vorrq_u32(vandq_u32(bits, vdupq_n_u32(0x807fffffu)),
                                        vdupq_n_u32(0x3f000000u)));
}

#elif defined(__x86_64__)
constexpr int W = 4;
struct V { __m128 v; };
struct M { __m128 m; };

inline V load(const float* p) { return {_mm_loadu_ps(p)}; }
inline void store(float* p, V a) { _mm_storeu_ps(p, a.v); }
inline V set1(float x) { return {_mm_set1_ps(x)}; }
inline V add(V a, V b) { return {_mm_add_ps(a.v, b.v)}; }
inline V sub(V a, V b) { return {_mm_sub_ps(a.v, b.v)}; }
inline V mul(V a, V b) { return {_mm_mul_ps(a.v, b.v)}; }
inline V div(V a, V b) { return {_mm_div_ps(a.v, b.v)}; }
inline V fmadd(V a, V b, V c) { return {_mm_add_ps(_mm_mul_ps(a.v, b.v), c.v)}; }
inline V vmax(V a, V b) { return {_mm_max_ps(a.v, b.v)}; }
inline V vmin(V a, V b) { return {_mm_min_ps(a.v, b.v)}; }
inline V vabs(V a) { return {_mm_andnot_ps(_mm_set1_ps(-0.0f), a.v)}; }
inline V vneg(V a) { return {_mm_xor_ps(_mm_set1_ps(-0.0f), a.v)}; }
inline V vsign_of(V a) { return {_mm_and_ps(_mm_set1_ps(-0.0f), a.v)}; }
inline V vor(V a, V b) { return {_mm_or_ps(a.v, b.v)}; }
inline V vsqrt(V a) { return {_mm_sqrt_ps(a.v)}; }
inline M gt(V a, V b) { return {_mm_cmpgt_ps(a.v, b.v)}; }
inline M ge(V a, V b) { return {_mm_cmpge_ps(a.v, b.v)}; }
inline M lt(V a, V b) { return {_mm_cmplt_ps(a.v, b.v)}; }
inline M le(V a, V b) { return {_mm_cmple_ps(a.v, b.v)}; }
inline M eq(V a, V b) { return {_mm_cmpeq_ps(a.v, b.v)}; }
inline M ne(V a, V b) { return {_mm_cmpneq_ps(a.v, b.v)}; }
inline M mand(M a, M b) { return {_mm_and_ps(a.m, b.m)}; }
inline V select(M m, V a, V b) {
  return {_mm_or_ps(_mm_and_ps(m.m, a.v), _mm_andnot_ps(m.m, b.v))};
}
inline uint32_t mask_bits(M m) { return static_cast<uint32_t>(_mm_movemask_ps(m.m)); }
// half to even (the default rounding mode) for |a| < 2^23; larger values are integers already
inline V vround(V a) {
  V big = set1(8388608.0f);
  V r = vor(sub(add(vabs(a), big), big), vsign_of(a));
  return select(lt(vabs(a), big), r, a);
}
inline V vfloor(V a) {
  V r = vround(a);
  return select(gt(r, a), sub(r, set1(1.0f)), r);
}
inline V vceil(V a) {
  V r = vround(a);
  return select(lt(r, a), add(r, set1(1.0f)), r);
}
inline V pow2i(V n) {
  __m128i i = _mm_add_epi32(_mm_cvtps_epi32(n.v), _mm_set1_epi32(127));
  return {_mm_castsi128_ps(_mm_slli_epi32(i, 23))};
}
inline void split_exp(V x, V& m, V& e) {
  __m128i bits = _mm_castps_si128(x.v);
  __m128i ex = _mm_sub_epi32(_mm_srli_epi32(bits, 23), _mm_set1_epi32(126));
  e.v = _mm_cvtepi32_ps(ex);
  m.v = _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(bits, _mm_set1_epi32(0x807fffff)),
                                      _mm_set1_epi32(0x3f000000)));
}

#else  // portable: one float
constexpr int W = 1;
struct V { float v; };
struct M { bool m; };

inline V load(const float* p) { return {*p}; }
inline void store(float* p, V a) { *p = a.v; }
inline V set1(float x) { return {x}; }
inline V add(V a, V b) { return {a.v + b.v}; }
inline V sub(V a, V b) { return {a.v - b.v}; }
inline V mul(V a, V b) { return {a.v * b.v}; }
inline V div(V a, V b) { return {a.v / b.v}; }
inline V fmadd(V a, V b, V c) { return {a.v * b.v + c.v}; }
inline V vmax(V a, V b) { return {a.v > b.v ? a.v : b.v}; }
inline V vmin(V a, V b) { return {a.v < b.v ? a.v : b.v}; }
inline V vabs(V a) { return {std::fabs(a.v)}; }
inline V vneg(V a) { return {-a.v}; }
inline V vsign_of(V a) { return {std::signbit(a.v) ? -0.0f : 0.0f}; }
inline V vor(V a, V b) { return {std::signbit(b.v) ? std::copysign(a.v, -1.0f) : a.v}; }
inline V vsqrt(V a) { return {std::sqrt(a.v)}; }
inline V vround(V a) { return {std::nearbyint(a.v)}; }
inline V vfloor(V a) { return {std::floor(a.v)}; }
inline V vceil(V a) { return {std::ceil(a.v)}; }
inline M gt(V a, V b) { return {a.v > b.v}; }
inline M ge(V a, V b) { return {a.v >= b.v}; }
inline M lt(V a, V b) { return {a.v < b.v}; }
inline M le(V a, V b) { return {a.v <= b.v}; }
inline M eq(V a, V b) { return {a.v == b.v}; }
inline M ne(V a, V b) { return {a.v != b.v}; }
inline M mand(M a, M b) { return {a.m && b.m}; }
inline V select(M m, V a, V b) { return {m.m ? a.v : b.v}; }
inline uint32_t mask_bits(M m) { return m.m ? 1u : 0u; }
inline V pow2i(V n) { return {std::ldexp(1.0f, static_cast<int>(n.v))}; }
inline void split_exp(V x, V& m, V& e) {
  int ex = 0;
  m.v = std::frexp(x.v, &ex);
  e.v = static_cast<float>(ex);
}
#endif

}  // namespace
}  // namespace eltwise
}  // namespace onert_neon
