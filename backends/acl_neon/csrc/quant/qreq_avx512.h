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
// the same channels (GEMM rows, a row's depthwise pixels) build it once.
struct Requant16 {
  __m512i m_e, m_o, k_e, k_o, th_e, th_o, df_e, df_o, sh, lo, hi, zp;
  bool fix, add_zp;

  Requant16(const RequantVec& v, int64_t c)
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
  __m128i apply(__m512i a) const {
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, m_e), k_e);     // even channels, int64
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), m_o), k_o);
    if constexpr (FIX) {
      pe = _mm512_mask_sub_epi64(pe, _mm512_cmplt_epi64_mask(pe, th_e), pe, df_e);
      po = _mm512_mask_sub_epi64(po, _mm512_cmplt_epi64_mask(po, th_o), po, df_o);
    }
    // high halves: even channels' moved down into the even lanes, odd ones in place
    __m512i h = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA),
                                        _mm512_srli_epi64(pe, 32), po);
    h = _mm512_min_epi32(_mm512_max_epi32(_mm512_srav_epi32(h, sh), lo), hi);
    if (add_zp) h = _mm512_add_epi32(h, zp);
    return _mm512_cvtepi32_epi8(h);
  }
};

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
