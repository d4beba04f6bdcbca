// AVX-512 requantization of 16 int32 accumulators (RequantVec form, see qgemm.h). Included
// only by *_avx512.cpp files (static inline: no definition is shared with other ISA levels).
#pragma once
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstdint>

#include "qgemm.h"

namespace onert_neon {
namespace quant {

// The per-channel constants of channels [c, c + 16) (c a multiple of 16) in registers:
// rq(a) gives the 16 output bytes of accumulators a. Kernels that requantize many vectors of
// the same channels (GEMM rows, a row's depthwise pixels) build it once. The constructor and
// apply() are always inlined: GCC kept the constructor out of line in the GEMM's micro-tiles,
// returning the twelve vectors through the stack for every tile (a 12544x32x16 convolution
// 90 -> 72 us, 3136x144x24 82 -> 75 us with them inlined).
struct Requant16 {
  __m512i m_e, m_o, k_e, k_o, th_e, th_o, df_e, df_o, sh, lo, hi, zp;
  bool fix, add_zp;

  __attribute__((always_inline)) Requant16(const RequantVec& v, int64_t c)
      // vpmuldq reads the low dword of each qword: m32 + c + 1 puts the odd channels' there
      : m_e(_mm512_loadu_si512(v.m32 + c)), m_o(_mm512_loadu_si512(v.m32 + c + 1)),
        k_e(_mm512_loadu_si512(v.k16 + c)), k_o(_mm512_loadu_si512(v.k16 + c + 8)),
        th_e(), th_o(), df_e(), df_o(), sh(_mm512_loadu_si512(v.sh32 + c)),
        lo(_mm512_set1_epi32(v.lo_z)), hi(_mm512_set1_epi32(v.hi_z)),
        zp(_mm512_set1_epi32(v.zp)), fix(v.fix), add_zp(v.zp != 0) {
    if (fix) {
      th_e = _mm512_loadu_si512(v.th16 + c);
      th_o = _mm512_loadu_si512(v.th16 + c + 8);
      df_e = _mm512_loadu_si512(v.df16 + c);
      df_o = _mm512_loadu_si512(v.df16 + c + 8);
    }
  }

  // the 16 output bytes of accumulators a
  __m128i operator()(__m512i a) const { return fix ? apply<true>(a) : apply<false>(a); }

  // operator() for FIX == fix, known when compiled (a kernel that requantizes many vectors
  // with one Requant16 dispatches once: the unused constants then take no registers)
  template <bool FIX>
  __attribute__((always_inline)) __m128i apply(__m512i a) const {
    __m512i h = _mm512_min_epi32(_mm512_max_epi32(scaled<FIX>(a), lo), hi);
    if (add_zp) h = _mm512_add_epi32(h, zp);
    return _mm512_cvtepi32_epi8(h);
  }

  // (a * m + k) >> s per channel, before the clamp and the zero point (int32: s >= 32)
  template <bool FIX>
  __attribute__((always_inline)) __m512i scaled(__m512i a) const {
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, m_e), k_e);     // even channels, int64
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), m_o), k_o);
    if constexpr (FIX) {
      pe = _mm512_mask_sub_epi64(pe, _mm512_cmplt_epi64_mask(pe, th_e), pe, df_e);
      po = _mm512_mask_sub_epi64(po, _mm512_cmplt_epi64_mask(po, th_o), po, df_o);
    }
    // the high halves, channel order: dword 2i + 1 of pe (even channels), of po (odd ones);
    // one two-source permutation (a shift and a blend before: 220 -> 212 us on the
    // 12544x16x96 GEMM of qgemm_avx512.cpp)
    const __m512i hi_idx =
        _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    const __m512i h = _mm512_permutex2var_epi32(pe, hi_idx, po);
    return _mm512_srav_epi32(h, sh);
  }
};

// Output codes of four vectors of int32 values (the zero point added), saturated to 8 bits
// (SIGNED: int8, else uint8) and clamped to [lo, hi] (bytes of every lane): lane i of the
// result holds v_i's 16 bytes. Two saturating packs and a dword permutation replace four
// clamps and four vpmovdb (the packs interleave the four vectors by 128-bit lane: byte group
// 4 * lane + i is v_i's dwords 4 * lane .. 4 * lane + 3). Saturating first and clamping in
// bytes gives the same codes as clamping the int32 values, for [lo, hi] within the 8-bit range.
// Whether pack_codes4 gives v's codes: 1 as int8, 2 as uint8, 0 not (the zero point not
// folded into the rounding constant, or [lo, hi] beyond 8 bits)
inline int packed_codes(const RequantVec& v) {
  if (v.zp != 0) return 0;
  if (v.lo_z >= -128 && v.hi_z <= 127) return 1;
  return v.lo_z >= 0 && v.hi_z <= 255 ? 2 : 0;
}

template <bool SIGNED>
__attribute__((always_inline)) inline __m512i pack_codes4(__m512i v0, __m512i v1, __m512i v2,
                                                          __m512i v3, __m512i lo, __m512i hi) {
  const __m512i w01 = _mm512_packs_epi32(v0, v1), w23 = _mm512_packs_epi32(v2, v3);
  __m512i b = SIGNED ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23);
  b = SIGNED ? _mm512_min_epi8(_mm512_max_epi8(b, lo), hi)
             : _mm512_min_epu8(_mm512_max_epu8(b, lo), hi);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, b);
}

static inline __mmask16 mask16_of(int64_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF)
                    : left <= 0 ? static_cast<__mmask16>(0)
                                : static_cast<__mmask16>((1u << left) - 1);
}

// store the first n (1..16) bytes of b (a full vector with one plain store)
static inline void store_bytes16(uint8_t* dst, __m128i b, int64_t n) {
  if (n >= 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), b);
  else
    _mm_mask_storeu_epi8(dst, mask16_of(n), b);
}

}  // namespace quant
}  // namespace onert_neon
#endif
