// AVX-512 requantization of 16 int32 accumulators (RequantVec form, see qgemm.h). Included
// only by *_avx512.cpp files (static inline: no definition is shared with other ISA levels).
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "qgemm.h"

namespace onert_neon {
namespace quant {

// bytes of channels [c, c + 16) of `v` (c a multiple of 16); a: the whole accumulators
static inline __m128i requant16_avx512(__m512i a, const RequantVec& v, int64_t c) {
  // vpmuldq reads the low dword of each qword: m32 + c + 1 puts the odd channels' there
  __m512i pe = _mm512_mul_epi32(a, _mm512_loadu_si512(v.m32 + c));   // even channels, int64
  __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_loadu_si512(v.m32 + c + 1));
  pe = _mm512_add_epi64(pe, _mm512_loadu_si512(v.k16 + c));
  po = _mm512_add_epi64(po, _mm512_loadu_si512(v.k16 + c + 8));
  if (v.fix) {
    __mmask8 ne = _mm512_cmplt_epi64_mask(pe, _mm512_loadu_si512(v.th16 + c));
    __mmask8 no = _mm512_cmplt_epi64_mask(po, _mm512_loadu_si512(v.th16 + c + 8));
    pe = _mm512_mask_sub_epi64(pe, ne, pe, _mm512_loadu_si512(v.df16 + c));
    po = _mm512_mask_sub_epi64(po, no, po, _mm512_loadu_si512(v.df16 + c + 8));
  }
  // high halves: even channels' moved down into the even lanes, odd ones in place
  __m512i h = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA),
                                      _mm512_srli_epi64(pe, 32), po);
  h = _mm512_srav_epi32(h, _mm512_loadu_si512(v.sh32 + c));
  h = _mm512_min_epi32(_mm512_max_epi32(h, _mm512_set1_epi32(v.lo_z)),
                       _mm512_set1_epi32(v.hi_z));
  if (v.zp != 0) h = _mm512_add_epi32(h, _mm512_set1_epi32(v.zp));
  return _mm512_cvtepi32_epi8(h);
}

// store the first n (1..16) bytes of b (a full vector with one plain store)
static inline void store_bytes16(uint8_t* dst, __m128i b, int64_t n) {
  if (n >= 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), b);
  } else {
    alignas(16) uint8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), b);
    for (int64_t i = 0; i < n; ++i) dst[i] = tmp[i];
  }
}

static inline __mmask16 mask16_of(int64_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF)
                    : left <= 0 ? static_cast<__mmask16>(0)
                                : static_cast<__mmask16>((1u << left) - 1);
}

}  // namespace quant
}  // namespace onert_neon
#endif
