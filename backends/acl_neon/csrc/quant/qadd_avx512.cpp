// AVX-512 vector lanes of the quantized ADD (the arithmetic of qadd.h's vector elements, 16
// elements at a time in int32 lanes).
//
// An input's scaling vqrdmulh(t, m) = floor((t m + 2^30) / 2^31) is computed without int64
// products: t = d << n (or d >> -n) with |d| <= 255, so with m = mh 2^11 + ml (ml < 2^11) and
// S = 31 - max(n, 0) >= 11,
//   floor((d m + 2^(S-1)) / 2^S) = (d mh + ((d ml + 2^(S-1)) >> 11)) >> (S - 11)
// exactly (write d ml + 2^(S-1) = q1 2^11 + q0 with 0 <= q0 < 2^11: the dropped q0 and the
// low bits of d mh + q1 never reach 2^S), and every term fits int32 (|d mh| < 2^28,
// |d ml| < 2^19). The non-shift-first form, vqrdmulh(d << 20, m) >> -e, is S = 11 followed by
// the shift. The output's vqrdmulh keeps the even/odd int64 products (its operand is a sum of
// up to 2^29). RDBP for |h| < 2^29: (h + 2^(e-1) - [h < 0]) >> e, gemmlowp's rounding (halves
// away from zero) in one shift. Where add_bound_wraps proved the int16 wraps identities
// (p.wrap_free), they are skipped.
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

// one input's scaling: d = q - zp, pre-shifted right by `pre` (shift-first with n < 0), then
// (d mh + ((d ml + r) >> 11)) >> post
struct InputConsts {
  __m512i zp, mh, ml, r;
  __m128i pre, post;
};

struct Consts {
  InputConsts in1, in2;
  __m512i mo, zpo, lo, hi, round, neg;
  __m128i ex;                             // the output's right shift
  bool sub;
};

InputConsts input_consts(int32_t zp, int32_t m, int32_t e, bool shift_first) {
  const int32_t n = shift_first ? 20 + e : 20;     // t = d << n (n < 0: d >> -n)
  const int32_t S = n > 0 ? 31 - n : 31;            // non-shift-first: S = 11, then >> -e
  const int32_t post = shift_first ? S - 11 : -e;
  const int32_t s_eff = shift_first ? S : 11;
  InputConsts c;
  c.zp = _mm512_set1_epi32(zp);
  c.mh = _mm512_set1_epi32(m >> 11);
  c.ml = _mm512_set1_epi32(m & 2047);
  c.r = _mm512_set1_epi32(int32_t{1} << (s_eff - 1));
  c.pre = _mm_cvtsi32_si128(shift_first && n < 0 ? -n : 0);
  c.post = _mm_cvtsi32_si128(post);
  return c;
}

template <bool SF>
inline __m512i input16(__m512i q, const InputConsts& c) {
  __m512i d = _mm512_sub_epi32(q, c.zp);
  if (SF) d = _mm512_sra_epi32(d, c.pre);
  const __m512i lowp = _mm512_add_epi32(_mm512_mullo_epi32(d, c.ml), c.r);
  const __m512i sum = _mm512_add_epi32(_mm512_mullo_epi32(d, c.mh), _mm512_srai_epi32(lowp, 11));
  return _mm512_sra_epi32(sum, c.post);
}

inline __m512i wrap16(__m512i v) { return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16); }

template <bool S, bool SF, bool WF>
inline __m128i block16(const Consts& c, const uint8_t* a, const uint8_t* b) {
  const __m128i ra = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i rb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  const __m512i qa = S ? _mm512_cvtepi8_epi32(ra) : _mm512_cvtepu8_epi32(ra);
  const __m512i qb = S ? _mm512_cvtepi8_epi32(rb) : _mm512_cvtepu8_epi32(rb);
  const __m512i x1 = input16<SF>(qa, c.in1);
  const __m512i x2 = input16<SF>(qb, c.in2);
  const __m512i raw = c.sub ? _mm512_sub_epi32(x1, x2) : _mm512_add_epi32(x1, x2);
  const __m512i h = vqrdmulh16(raw, c.mo);
  // RDBP: (h + round + (h < 0 ? neg : 0)) >> ex, round = 2^(ex-1) and neg = -1 (0 for ex = 0)
  const __m512i hn = _mm512_and_si512(_mm512_srai_epi32(h, 31), c.neg);
  __m512i v = _mm512_sra_epi32(_mm512_add_epi32(_mm512_add_epi32(h, c.round), hn), c.ex);
  if (!WF) v = wrap16(v);
  v = _mm512_add_epi32(v, c.zpo);
  if (!WF) v = wrap16(v);
  v = _mm512_min_epi32(_mm512_max_epi32(v, c.lo), c.hi);
  return _mm512_cvtepi32_epi8(v);
}

template <bool S, bool SF, bool WF>
void run(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t i0,
         int64_t i1) {
  Consts c;
  c.in1 = input_consts(p.zp1, p.m1, p.e1, SF);
  c.in2 = input_consts(p.zp2, p.m2, p.e2, SF);
  c.mo = _mm512_set1_epi32(p.mo);
  c.zpo = _mm512_set1_epi32(p.zpo);
  c.lo = _mm512_set1_epi32(p.lo);
  c.hi = _mm512_set1_epi32(p.hi);
  c.round = _mm512_set1_epi32(p.eo < 0 ? int32_t{1} << (-p.eo - 1) : 0);
  c.neg = _mm512_set1_epi32(p.eo < 0 ? -1 : 0);
  c.ex = _mm_cvtsi32_si128(-p.eo);
  c.sub = p.sub;
  int64_t i = i0;
  for (; i + 16 <= i1; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), block16<S, SF, WF>(c, a + i, b + i));
  if (i < i1) qadd_vector_scalar(p, a, b, out, i, i1);
}

template <bool S>
void run_signed(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                int64_t i0, int64_t i1) {
  if (p.shift_first)
    p.wrap_free ? run<S, true, true>(p, a, b, out, i0, i1) : run<S, true, false>(p, a, b, out, i0, i1);
  else
    p.wrap_free ? run<S, false, true>(p, a, b, out, i0, i1)
                : run<S, false, false>(p, a, b, out, i0, i1);
}

}  // namespace

void qadd_vector_avx512(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1) {
  if (p.x_signed)
    run_signed<true>(p, a, b, out, i0, i1);
  else
    run_signed<false>(p, a, b, out, i0, i1);
}

}  // namespace quant
}  // namespace onert_neon
#endif
