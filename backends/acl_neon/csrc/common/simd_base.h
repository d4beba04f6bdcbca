// The acl_neon vector layer, baseline ISA: NEON (aarch64), SSE2 (the x86-64 baseline) or one
// float elsewhere. Include only from baseline files (no ISA flags); *_avx2.cpp files include
// simd_avx2.h and *_avx512.cpp files simd_avx512.h, which give the same API:
//   W (lanes), V (a vector of W floats, member v), M (a lane mask), kRegs (vector registers:
//   how many values a kernel may keep in registers);
//   load/store, load_n/store_n (the first n < W lanes; the rest read as 0, are not written),
//   zero, set1, add/sub/mul/div, fmadd(a, b, c) = a * b + c (fused where the ISA has FMA),
//   vmax(a, b) = a > b ? a : b and vmin(a, b) = a < b ? a : b (TFLite's NaN semantics, on every
//   ISA), vabs, vneg, vsign_of, vor, vsqrt, vround (half to even), vfloor, vceil,
//   gt/ge/lt/le/eq/ne -> M, mand, select(m, a, b) = m ? a : b, mask_bits (lane k -> bit k),
//   pow2i(n) = 2^n (integral-valued n in [-126, 127]), vldexp(y, n) = y * 2^n rounded once
//   (also into subnormals or to inf) for y in [0.5, 2) and integral-valued n in [-250, 250]
//   (y * 2^h exact, h = floor(n / 2), by adding h to y's exponent bits, then one multiply by
//   2^(n - h); AVX-512: vscalefps), and NaN for a NaN y with a NaN n (vexp's NaN path),
//   split_exp(x, m, e): x = m * 2^e, m in [0.5, 1) (x > 0 normal), hsum (pairwise sum of lanes).
// simd_math.h adds exp/log/tanh/... over this API. Everything lives in an anonymous namespace
// (each ISA file gets its own copies: no ODR mixing of ISA-compiled code).
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
namespace simd {
namespace {

#if defined(__aarch64__)
constexpr int W = 4;
constexpr int kRegs = 32;
struct V { float32x4_t v; };
struct M { uint32x4_t m; };

inline V load(const float* p) { return {vld1q_f32(p)}; }
inline void store(float* p, V a) { vst1q_f32(p, a.v); }
inline V zero() { return {vdupq_n_f32(0.0f)}; }
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
inline float hsum(V a) { return vaddvq_f32(a.v); }
inline V pow2i(V n) {
  int32x4_t i = vaddq_s32(vcvtnq_s32_f32(n.v), vdupq_n_s32(127));
  return {vreinterpretq_f32_s32(vshlq_n_s32(i, 23))};
}
inline V vldexp(V y, V n) {
  const int32x4_t ni = vcvtnq_s32_f32(n.v), h = vshrq_n_s32(ni, 1);
  const float32x4_t yh =
      vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(y.v), vshlq_n_s32(h, 23)));
  const int32x4_t e = vaddq_s32(vsubq_s32(ni, h), vdupq_n_s32(127));
  return {vmulq_f32(yh, vreinterpretq_f32_s32(vshlq_n_s32(e, 23)))};
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
constexpr int kRegs = 16;
struct V { __m128 v; };
struct M { __m128 m; };

inline V load(const float* p) { return {_mm_loadu_ps(p)}; }
inline void store(float* p, V a) { _mm_storeu_ps(p, a.v); }
inline V zero() { return {_mm_setzero_ps()}; }
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
inline float hsum(V a) {
  float t[4];
  _mm_storeu_ps(t, a.v);
  return (t[0] + t[2]) + (t[1] + t[3]);
}
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
inline V vldexp(V y, V n) {
  const __m128i ni = _mm_cvtps_epi32(n.v), h = _mm_srai_epi32(ni, 1);
  const __m128 yh = _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(y.v), _mm_slli_epi32(h, 23)));
  const __m128i e = _mm_add_epi32(_mm_sub_epi32(ni, h), _mm_set1_epi32(127));
  return {_mm_mul_ps(yh, _mm_castsi128_ps(_mm_slli_epi32(e, 23)))};
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
constexpr int kRegs = 16;
struct V { float v; };
struct M { bool m; };

inline V load(const float* p) { return {*p}; }
inline void store(float* p, V a) { *p = a.v; }
inline V zero() { return {0.0f}; }
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
inline float hsum(V a) { return a.v; }
inline V pow2i(V n) { return {std::ldexp(1.0f, static_cast<int>(n.v))}; }
inline V vldexp(V y, V n) {
  const float h = std::floor(n.v * 0.5f);
  return mul(mul(y, pow2i({h})), pow2i({n.v - h}));
}
inline void split_exp(V x, V& m, V& e) {
  int ex = 0;
  m.v = std::frexp(x.v, &ex);
  e.v = static_cast<float>(ex);
}
#endif

// the first n (0 <= n <= W) lanes through a zero-filled buffer
inline V load_n(const float* p, int n) {
  float t[W] = {};
  std::memcpy(t, p, sizeof(float) * static_cast<size_t>(n));
  return load(t);
}
inline void store_n(float* p, V a, int n) {
  float t[W];
  store(t, a);
  std::memcpy(p, t, sizeof(float) * static_cast<size_t>(n));
}


}  // namespace
}  // namespace simd
}  // namespace onert_neon
