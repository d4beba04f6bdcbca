// AVX2 vector lanes of the quantized ADD (qadd.h's vector elements, 8 at a time in int32 lanes).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#include "qadd.h"

namespace onert_neon {
namespace quant {

namespace {

// vqrdmulh(t, m) for m in [0, 2^31): floor((2 t m + 2^31) / 2^32) per lane
inline __m256i vqrdmulh8(__m256i t, __m256i m) {
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << 31);
  __m256i pe = _mm256_mul_epi32(t, m);
  __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(t, 32), m);
  pe = _mm256_add_epi64(_mm256_add_epi64(pe, pe), half);
  po = _mm256_add_epi64(_mm256_add_epi64(po, po), half);
  return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

inline __m256i shl8(__m256i x, int32_t n) {
  return n >= 0 ? _mm256_sll_epi32(x, _mm_cvtsi32_si128(n))
                : _mm256_sra_epi32(x, _mm_cvtsi32_si128(-n));
}

inline __m256i input8(__m256i q, int32_t zp, int32_t m, int32_t e, bool shift_first) {
  q = _mm256_sub_epi32(q, _mm256_set1_epi32(zp));
  const __m256i mv = _mm256_set1_epi32(m);
  if (shift_first) return vqrdmulh8(shl8(q, 20 + e), mv);
  return _mm256_sra_epi32(vqrdmulh8(_mm256_slli_epi32(q, 20), mv), _mm_cvtsi32_si128(-e));
}

template <bool S>
void run(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t i0,
         int64_t i1) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << -p.eo) - 1);
  const __m256i vmask = _mm256_set1_epi32(mask), vthr = _mm256_set1_epi32(mask >> 1);
  const __m256i mo = _mm256_set1_epi32(p.mo), zpo = _mm256_set1_epi32(p.zpo);
  const __m256i lo = _mm256_set1_epi32(p.lo), hi = _mm256_set1_epi32(p.hi);
  const __m128i ex = _mm_cvtsi32_si128(-p.eo);
  int64_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const __m128i ra = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i));
    const __m128i rb = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i));
    const __m256i qa = S ? _mm256_cvtepi8_epi32(ra) : _mm256_cvtepu8_epi32(ra);
    const __m256i qb = S ? _mm256_cvtepi8_epi32(rb) : _mm256_cvtepu8_epi32(rb);
    const __m256i x1 = input8(qa, p.zp1, p.m1, p.e1, p.shift_first);
    const __m256i x2 = input8(qb, p.zp2, p.m2, p.e2, p.shift_first);
    const __m256i raw = p.sub ? _mm256_sub_epi32(x1, x2) : _mm256_add_epi32(x1, x2);
    const __m256i h = vqrdmulh8(raw, mo);
    const __m256i thr = _mm256_add_epi32(vthr, _mm256_srli_epi32(h, 31));
    const __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(h, vmask), thr);  // -1 where up
    __m256i v = _mm256_sub_epi32(_mm256_sra_epi32(h, ex), up);
    v = _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
    v = _mm256_add_epi32(v, zpo);
    v = _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
    v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    const __m128i bytes = S ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), bytes);
  }
  if (i < i1) qadd_vector_scalar(p, a, b, out, i, i1);
}

}  // namespace

void qadd_vector_avx2(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                      int64_t i0, int64_t i1) {
  if (p.x_signed)
    run<true>(p, a, b, out, i0, i1);
  else
    run<false>(p, a, b, out, i0, i1);
}

}  // namespace quant
}  // namespace onert_neon
#endif
