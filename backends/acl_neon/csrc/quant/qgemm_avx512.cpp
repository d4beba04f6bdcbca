// AVX-512 VNNI kernels of the quantized GEMM: vpdpbusd (u8 x s8, 4 products per int32 lane,
// exact) and the int64 requantization, 8 channels per vector.
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstddef>
#include <cstdint>

#include "qgemm.h"
#include "qreq_avx512.h"

namespace onert_neon {
namespace quant {

namespace {

// acc += the u8 x s8 dot products of a and b in groups of 4 bytes. Inline assembly rather than
// _mm512_dpbusd_epi32: GCC 12 copies every accumulator of the micro-kernels through a second
// register around the intrinsic (two extra moves per instruction in the inner loop); the tied
// "+v" operand keeps each accumulator in one register.
inline __m512i dpbusd(__m512i acc, __m512i a_u8, __m512i b_s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a_u8), "v"(b_s8));
  return acc;
}

inline __m256i dpbusd(__m256i acc, __m256i a_u8, __m256i b_s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a_u8), "v"(b_s8));
  return acc;
}

// acc = the int32 dot products of MR rows x NB blocks of 16 channels; a: rows of kp bytes,
// b: the first block
template <int MR, int NB>
inline void accumulate(const uint8_t* a, int64_t kp, const int8_t* b, __m512i (&acc)[MR][NB]) {
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NB; ++j) acc[r][j] = _mm512_setzero_si512();
  const int64_t bstride = kNB * kp;
  for (int64_t q = 0; q < kp; q += 4) {
    __m512i w[NB];
    for (int j = 0; j < NB; ++j)
      w[j] = _mm512_loadu_si512(reinterpret_cast<const void*>(b + j * bstride + q * kNB));
    for (int r = 0; r < MR; ++r) {
      int32_t x;
      __builtin_memcpy(&x, a + r * kp + q, 4);
      __m512i av = _mm512_set1_epi32(x);
      for (int j = 0; j < NB; ++j) acc[r][j] = dpbusd(acc[r][j], av, w[j]);
    }
  }
}

// accumulate() where the last of the NB blocks has at most 8 real channels: that block is
// computed 8 wide (ymm, half the work; its upper 8 sums are 0)
template <int MR, int NB>
inline void accumulate_half(const uint8_t* a, int64_t kp, const int8_t* b,
                            __m512i (&acc)[MR][NB]) {
  constexpr int NZ = NB - 1;                       // the full (zmm) blocks
  __m256i half[MR];
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < NZ; ++j) acc[r][j] = _mm512_setzero_si512();
    half[r] = _mm256_setzero_si256();
  }
  const int64_t bstride = kNB * kp;
  for (int64_t q = 0; q < kp; q += 4) {
    __m512i w[NZ > 0 ? NZ : 1];
    for (int j = 0; j < NZ; ++j)
      w[j] = _mm512_loadu_si512(reinterpret_cast<const void*>(b + j * bstride + q * kNB));
    const __m256i wh =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + NZ * bstride + q * kNB));
    for (int r = 0; r < MR; ++r) {
      int32_t x;
      __builtin_memcpy(&x, a + r * kp + q, 4);
      if (NZ > 0) {
        const __m512i av = _mm512_set1_epi32(x);
        for (int j = 0; j < NZ; ++j) acc[r][j] = dpbusd(acc[r][j], av, w[j]);
        half[r] = dpbusd(half[r], _mm512_castsi512_si256(av), wh);
      } else {
        half[r] = dpbusd(half[r], _mm256_set1_epi32(x), wh);
      }
    }
  }
  for (int r = 0; r < MR; ++r) acc[r][NB - 1] = _mm512_zextsi256_si512(half[r]);
}

// MR rows x NB blocks of 16 channels into c (rows of ldc int32)
template <int MR, int NB>
inline void micro(const uint8_t* a, int64_t kp, const int8_t* b, int32_t* c, int64_t ldc) {
  __m512i acc[MR][NB];
  accumulate<MR, NB>(a, kp, b, acc);
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NB; ++j)
      _mm512_storeu_si512(reinterpret_cast<void*>(c + r * ldc + j * kNB), acc[r][j]);
}

template <int NB>
inline void rows_of(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int32_t* c,
                    int64_t ldc) {
  int64_t r = 0;
  for (; r + 6 <= rows; r += 6) micro<6, NB>(a + r * kp, kp, b, c + r * ldc, ldc);
  switch (rows - r) {
    case 5: micro<5, NB>(a + r * kp, kp, b, c + r * ldc, ldc); break;
    case 4: micro<4, NB>(a + r * kp, kp, b, c + r * ldc, ldc); break;
    case 3: micro<3, NB>(a + r * kp, kp, b, c + r * ldc, ldc); break;
    case 2: micro<2, NB>(a + r * kp, kp, b, c + r * ldc, ldc); break;
    case 1: micro<1, NB>(a + r * kp, kp, b, c + r * ldc, ldc); break;
    default: break;
  }
}

// Compile-time cases of the fused requantization: FIX (some channel has the reference
// rounding correction, RequantVec::fix) and RS (a per-row term, rowsum != nullptr). Dispatched
// once per gemm_rq call: with both runtime, micro_rq<6, 2> kept the correction's constants and
// the row-sum test live through every tile (a 12544x16x96 GEMM: 290 -> 261 us without).
template <bool FIX_, bool RS_>
struct RqCase {
  static constexpr bool FIX = FIX_, RS = RS_;
};

// MR rows x NB blocks from channel c0 of n, requantized into out (rows of n bytes)
template <int MR, int NB, bool HALF, class CASE>
inline void micro_rq(const uint8_t* a, int64_t kp, const int8_t* b, int64_t c0, int64_t n,
                     const int32_t* ccoef, const int64_t* rowsum, const RequantVec& vin,
                     uint8_t* out) {
  const RequantVec v = vin;             // a local copy: the byte stores cannot alias it
  __m512i acc[MR][NB];
  if constexpr (HALF)
    accumulate_half<MR, NB>(a, kp, b, acc);
  else
    accumulate<MR, NB>(a, kp, b, acc);
  for (int j = 0; j < NB; ++j) {
    const int64_t c = c0 + j * kNB, left = n - c;
    const __m512i cc = _mm512_maskz_loadu_epi32(mask16_of(left), ccoef + c);
    const Requant16 rq(v, c);
    for (int r = 0; r < MR; ++r) {
      __m512i s = _mm512_add_epi32(acc[r][j], cc);
      if constexpr (CASE::RS)
        s = _mm512_add_epi32(s, _mm512_set1_epi32(static_cast<int32_t>(rowsum[r])));
      store_bytes16(out + r * n + c, rq.template apply<CASE::FIX>(s), left);
    }
  }
}

template <int NB, bool HALF, class CASE>
inline void rows_rq(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t c0,
                    int64_t n, const int32_t* cc, const int64_t* rs, const RequantVec& v,
                    uint8_t* out) {
  int64_t r = 0;
  for (; r + 6 <= rows; r += 6)
    micro_rq<6, NB, HALF, CASE>(a + r * kp, kp, b, c0, n, cc, rs ? rs + r : rs, v, out + r * n);
  const uint8_t* ar = a + r * kp;
  const int64_t* rr = rs ? rs + r : rs;
  uint8_t* o = out + r * n;
  switch (rows - r) {
    case 5: micro_rq<5, NB, HALF, CASE>(ar, kp, b, c0, n, cc, rr, v, o); break;
    case 4: micro_rq<4, NB, HALF, CASE>(ar, kp, b, c0, n, cc, rr, v, o); break;
    case 3: micro_rq<3, NB, HALF, CASE>(ar, kp, b, c0, n, cc, rr, v, o); break;
    case 2: micro_rq<2, NB, HALF, CASE>(ar, kp, b, c0, n, cc, rr, v, o); break;
    case 1: micro_rq<1, NB, HALF, CASE>(ar, kp, b, c0, n, cc, rr, v, o); break;
    default: break;
  }
}

// blocks [blk0, blk1) in pairs; a last block of n with at most 8 channels is computed 8 wide
template <class CASE>
void gemm_rq(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t n,
             int64_t blk0, int64_t blk1, const int32_t* cc, const int64_t* rs,
             const RequantVec& v, uint8_t* out) {
  const int64_t bstride = kNB * kp;
  const int64_t half = n % kNB != 0 && n % kNB <= 8 ? n / kNB : -1;   // that block, if any
  int64_t blk = blk0;
  for (; blk + 2 <= blk1; blk += 2) {
    if (blk + 1 == half)
      rows_rq<2, true, CASE>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
    else
      rows_rq<2, false, CASE>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
  }
  if (blk < blk1 && blk == half)
    rows_rq<1, true, CASE>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
  else if (blk < blk1)
    rows_rq<1, false, CASE>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
}

}  // namespace

void gemm_rq_avx512(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t n,
                    int64_t blk0, int64_t blk1, const int32_t* ccoef, const int64_t* rowsum,
                    const Requant& rq, uint8_t* out) {
  const RequantVec& v = *rq.vec;
  if (v.fix && rowsum)
    gemm_rq<RqCase<true, true>>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out);
  else if (v.fix)
    gemm_rq<RqCase<true, false>>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out);
  else if (rowsum)
    gemm_rq<RqCase<false, true>>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out);
  else
    gemm_rq<RqCase<false, false>>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out);
}

void requant_row_vec_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add,
                            int64_t n, const Requant& rq, uint8_t* out) {
  const RequantVec v = *rq.vec;
  const __m512i radd = _mm512_set1_epi32(static_cast<int32_t>(row_add));
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 mk = mask16_of(n - c);
    __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mk, acc + c),
                                 _mm512_maskz_loadu_epi32(mk, ccoef + c));
    store_bytes16(out + c, Requant16(v, rq.vec_c0 + c)(_mm512_add_epi32(a, radd)), n - c);
  }
}

void gemm_u8s8_avx512(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                      int64_t nblocks, int32_t* c, int64_t ldc) {
  int64_t blk = 0;
  const int64_t bstride = kNB * kp;
  for (; blk + 2 <= nblocks; blk += 2) rows_of<2>(a, rows, kp, b + blk * bstride, c + blk * kNB, ldc);
  if (blk < nblocks) rows_of<1>(a, rows, kp, b + blk * bstride, c + blk * kNB, ldc);
}

// fc mode in 32-bit lanes: x = wrap32(acc + ccoef + row_add + bias) << left (wrapping);
// h = SRDHM(x, m) = (x * m + 2^30) >> 31, a floor (C++'s truncating division of the nudged
// product lands there for either sign; m >= 0 cannot saturate); y = round-half-up h >> s,
// i.e. (h >> s) + bit s - 1 of h (s > 0), exact without the int64 sum.
void requant_row_fc_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                           const Requant& rq, uint8_t* out) {
  const __m512i radd = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(row_add)));
  const __m512i half = _mm512_set1_epi64(int64_t{1} << 30), one = _mm512_set1_epi32(1);
  const __m512i lo = _mm512_set1_epi32(rq.lo - rq.zp_add), hi = _mm512_set1_epi32(rq.hi - rq.zp_add);
  const __m512i zp = _mm512_set1_epi32(rq.zp_add);
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 mk = mask16_of(n - c);
    __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mk, acc + c),
                                 _mm512_maskz_loadu_epi32(mk, ccoef + c));
    x = _mm512_add_epi32(_mm512_add_epi32(x, radd), _mm512_maskz_loadu_epi32(mk, rq.bias + c));
    x = _mm512_sllv_epi32(x, _mm512_maskz_loadu_epi32(mk, rq.left + c));
    // even channels' products in the low dwords' qwords, odd ones' via x >> 32 and m32 + c + 1
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(x, _mm512_loadu_si512(rq.fc_m32 + c)), half);
    __m512i po = _mm512_add_epi64(
        _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_loadu_si512(rq.fc_m32 + c + 1)), half);
    __m512i h = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA),
                                        _mm512_srli_epi64(pe, 31), _mm512_slli_epi64(po, 1));
    const __m512i sh = _mm512_maskz_loadu_epi32(mk, rq.s + c);
    const __mmask16 pos = _mm512_cmpgt_epi32_mask(sh, _mm512_setzero_si512());
    const __m512i bit = _mm512_maskz_and_epi32(
        pos, _mm512_srav_epi32(h, _mm512_sub_epi32(sh, one)), one);
    __m512i y = _mm512_add_epi32(_mm512_srav_epi32(h, sh), bit);
    y = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(y, lo), hi), zp);
    _mm_mask_storeu_epi8(out + c, mk, _mm512_cvtepi32_epi8(y));
  }
}

void requant_row_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                        const Requant& rq, uint8_t* out) {
  const __m512i radd = _mm512_set1_epi64(row_add), zp = _mm512_set1_epi64(rq.zp_add);
  const __m512i lo = _mm512_set1_epi64(rq.lo), hi = _mm512_set1_epi64(rq.hi);
  for (int64_t c = 0; c < n; c += 8) {
    int64_t left = n - c;
    __mmask8 mk = left >= 8 ? static_cast<__mmask8>(0xFF)
                            : static_cast<__mmask8>((1u << left) - 1);
    __m512i a = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(mk, acc + c));
    __m512i cc = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(mk, ccoef + c));
    a = _mm512_add_epi64(_mm512_add_epi64(a, cc), radd);
    __m512i t = _mm512_add_epi64(_mm512_mullo_epi64(a, _mm512_maskz_loadu_epi64(mk, rq.m + c)),
                                 _mm512_maskz_loadu_epi64(mk, rq.k + c));
    __mmask8 neg = _mm512_cmplt_epi64_mask(t, _mm512_maskz_loadu_epi64(mk, rq.thresh + c));
    t = _mm512_mask_sub_epi64(t, neg, t, _mm512_maskz_loadu_epi64(mk, rq.dfix + c));
    __m512i sh = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(mk, rq.s + c));
    __m512i y = _mm512_add_epi64(_mm512_srav_epi64(t, sh), zp);
    y = _mm512_min_epi64(_mm512_max_epi64(y, lo), hi);
    _mm512_mask_cvtepi64_storeu_epi8(out + c, mk, y);
  }
}

}  // namespace quant
}  // namespace onert_neon
#endif
