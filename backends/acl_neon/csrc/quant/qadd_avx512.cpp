// AVX-512 vector lanes of the quantized ADD (the arithmetic of qadd.h's vector elements, 16
// elements at a time in int32 lanes; the doubling high multiplies in int64 even/odd products).
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstdint>

#include "qadd.h"

namespace onert_neon {
namespace quant {

namespace {

// vqrdmulh(t, m) for m in [0, 2^31): floor((2 t m + 2^31) / 2^32) per lane
inline __m512i vqrdmulh16(__m512i t, __m512i m) {
  const __m512i half = _mm512_set1_epi64(int64_t{1} << 31);
  __m512i pe = _mm512_mul_epi32(t, m);
  __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(t, 32), m);
  pe = _mm512_add_epi64(_mm512_add_epi64(pe, pe), half);
  po = _mm512_add_epi64(_mm512_add_epi64(po, po), half);
  return _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), _mm512_srli_epi64(pe, 32), po);
}

inline __m512i shl16(__m512i x, int32_t n) {
  return n >= 0 ? _mm512_sll_epi32(x, _mm_cvtsi32_si128(n))
                : _mm512_sra_epi32(x, _mm_cvtsi32_si128(-n));
}

struct Consts {
  __m512i zp1, zp2, m1, m2, mo, zpo, lo, hi, mask, thr, one;
  __m128i ex, sl1, sr1, sl2, sr2;         // output shift; input left / right shift counts
  bool sub;
};

// shift_first: vqrdmulh(shl(q, 20 + e), m) (sl: the left count, sr: the right one, one of
// them 0); else vqrdmulh(q << 20, m) >> sr
template <bool SF>
inline __m512i input16(__m512i q, __m512i zp, __m512i m, __m128i sl, __m128i sr) {
  q = _mm512_sub_epi32(q, zp);
  if (SF) return vqrdmulh16(_mm512_sra_epi32(_mm512_sll_epi32(q, sl), sr), m);
  return _mm512_sra_epi32(vqrdmulh16(_mm512_slli_epi32(q, 20), m), sr);
}

template <bool S, bool SF>
inline __m128i block16(const Consts& c, const uint8_t* a, const uint8_t* b) {
  const __m128i ra = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i rb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  const __m512i qa = S ? _mm512_cvtepi8_epi32(ra) : _mm512_cvtepu8_epi32(ra);
  const __m512i qb = S ? _mm512_cvtepi8_epi32(rb) : _mm512_cvtepu8_epi32(rb);
  const __m512i x1 = input16<SF>(qa, c.zp1, c.m1, c.sl1, c.sr1);
  const __m512i x2 = input16<SF>(qb, c.zp2, c.m2, c.sl2, c.sr2);
  const __m512i raw = c.sub ? _mm512_sub_epi32(x1, x2) : _mm512_add_epi32(x1, x2);
  const __m512i h = vqrdmulh16(raw, c.mo);
  // RoundingDivideByPOT: (h >> ex) + ((h & mask) > (mask >> 1) + (h < 0))
  const __m512i thr = _mm512_add_epi32(c.thr, _mm512_srli_epi32(h, 31));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(h, c.mask), thr);
  __m512i v = _mm512_sra_epi32(h, c.ex);
  v = _mm512_mask_add_epi32(v, up, v, c.one);
  v = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);             // wrap to int16
  v = _mm512_add_epi32(v, c.zpo);
  v = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);
  v = _mm512_min_epi32(_mm512_max_epi32(v, c.lo), c.hi);
  return _mm512_cvtepi32_epi8(v);
}

template <bool S, bool SF>
void run(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t i0,
         int64_t i1) {
  Consts c;
  c.zp1 = _mm512_set1_epi32(p.zp1);
  c.zp2 = _mm512_set1_epi32(p.zp2);
  c.m1 = _mm512_set1_epi32(p.m1);
  c.m2 = _mm512_set1_epi32(p.m2);
  c.mo = _mm512_set1_epi32(p.mo);
  c.zpo = _mm512_set1_epi32(p.zpo);
  c.lo = _mm512_set1_epi32(p.lo);
  c.hi = _mm512_set1_epi32(p.hi);
  const int32_t mask = static_cast<int32_t>((int64_t{1} << -p.eo) - 1);
  c.mask = _mm512_set1_epi32(mask);
  c.thr = _mm512_set1_epi32(mask >> 1);
  c.one = _mm512_set1_epi32(1);
  c.ex = _mm_cvtsi32_si128(-p.eo);
  const int32_t n1 = SF ? 20 + p.e1 : -p.e1, n2 = SF ? 20 + p.e2 : -p.e2;
  c.sl1 = _mm_cvtsi32_si128(n1 > 0 ? n1 : 0);
  c.sr1 = _mm_cvtsi32_si128(n1 < 0 ? -n1 : SF ? 0 : n1);
  c.sl2 = _mm_cvtsi32_si128(n2 > 0 ? n2 : 0);
  c.sr2 = _mm_cvtsi32_si128(n2 < 0 ? -n2 : SF ? 0 : n2);
  c.sub = p.sub;
  int64_t i = i0;
  for (; i + 16 <= i1; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), block16<S, SF>(c, a + i, b + i));
  if (i < i1) qadd_vector_scalar(p, a, b, out, i, i1);
}

}  // namespace

void qadd_vector_avx512(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1) {
  if (p.x_signed)
    p.shift_first ? run<true, true>(p, a, b, out, i0, i1) : run<true, false>(p, a, b, out, i0, i1);
  else
    p.shift_first ? run<false, true>(p, a, b, out, i0, i1)
                  : run<false, false>(p, a, b, out, i0, i1);
}

}  // namespace quant
}  // namespace onert_neon
#endif
