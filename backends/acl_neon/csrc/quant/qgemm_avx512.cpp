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

// acc = init[j] + the int32 dot products of MR rows x NB blocks of 16 channels; a: rows of kp
// bytes, b: the first block
template <int MR, int NB>
inline void accumulate(const uint8_t* a, int64_t kp, const int8_t* b, const __m512i (&init)[NB],
                       __m512i (&acc)[MR][NB]) {
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NB; ++j) acc[r][j] = init[j];
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
// computed 8 wide (ymm, half the work; its upper 8 sums are 0, init's upper 8 ignored)
template <int MR, int NB>
inline void accumulate_half(const uint8_t* a, int64_t kp, const int8_t* b,
                            const __m512i (&init)[NB], __m512i (&acc)[MR][NB]) {
  constexpr int NZ = NB - 1;                       // the full (zmm) blocks
  __m256i half[MR];
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < NZ; ++j) acc[r][j] = init[j];
    half[r] = _mm512_castsi512_si256(init[NB - 1]);
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
  const __m512i zero[NB] = {};
  accumulate<MR, NB>(a, kp, b, zero, acc);
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

// How the fused requantization stores its codes: clamped in int32 lanes, the zero point
// added, then narrowed one vector at a time (kOutLanes, any RequantVec), or saturated and
// clamped as bytes four vectors at a time (pack_codes4: the zero point folded into k, i.e.
// zp == 0, and [lo, hi] within int8 (kOutS8) or uint8 (kOutU8)). The packed form takes about
// a third fewer instructions per vector; with short K the requantization is most of the time
// (MobileNetV2's 12544x16x96 GEMM: 92 us with the codes narrowed unrequantized, 252 us
// requantized in lanes, 220 packed; 189 with the sums started from the channel terms).
enum Out { kOutLanes, kOutS8, kOutU8 };

// Compile-time cases of the fused requantization: FIX (some channel has the reference
// rounding correction, RequantVec::fix), RS (a per-row term, rowsum != nullptr) and OUT.
// Dispatched once per gemm_rq call: with FIX and RS runtime, micro_rq<6, 2> kept the
// correction's constants and the row-sum test live through every tile (a 12544x16x96 GEMM:
// 290 -> 261 us without).
template <bool FIX_, bool RS_, Out OUT_>
struct RqCase {
  static constexpr bool FIX = FIX_, RS = RS_;
  static constexpr Out OUT = OUT_;
};

// store the first n (1..32) bytes of b (a full vector with one plain store)
inline void store_bytes32(uint8_t* dst, __m256i b, int64_t n) {
  if (n >= 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), b);
  else
    _mm256_mask_storeu_epi8(dst, (__mmask32{1} << n) - 1, b);
}

// the codes of MR rows x 2 blocks of int32 values y from channel c0 into out (rows of n
// bytes), 2 rows x 2 blocks per pack_codes4 (with one block, four rows a pack stored lane by
// lane ran slower than the vectors narrowed one at a time)
template <int MR, bool SIGNED>
__attribute__((always_inline)) inline void store_packed(const __m512i (&y)[MR][2], int64_t c0,
                                                        int64_t n, const RequantVec& v,
                                                        uint8_t* out) {
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(v.lo_z));
  const __m512i hi = _mm512_set1_epi8(static_cast<char>(v.hi_z));
  const int64_t left = n - c0;
#pragma GCC unroll 4
  for (int r = 0; r < MR; r += 2) {
    const int r1 = r + 1 < MR ? r + 1 : r;
    const __m512i p = pack_codes4<SIGNED>(y[r][0], y[r][1], y[r1][0], y[r1][1], lo, hi);
    store_bytes32(out + r * n + c0, _mm512_castsi512_si256(p), left);
    if (r + 1 < MR) store_bytes32(out + r1 * n + c0, _mm512_extracti64x4_epi64(p, 1), left);
  }
}

// MR rows x NB blocks from channel c0 of n, requantized into out (rows of n bytes)
template <int MR, int NB, bool HALF, class CASE>
inline void micro_rq(const uint8_t* a, int64_t kp, const int8_t* b, int64_t c0, int64_t n,
                     const int32_t* ccoef, const int64_t* rowsum, const RequantVec& vin,
                     uint8_t* out) {
  const RequantVec v = vin;             // a local copy: the byte stores cannot alias it
  __m512i acc[MR][NB], cc[NB];                  // the sums start from the channel terms
  for (int j = 0; j < NB; ++j)
    cc[j] = _mm512_maskz_loadu_epi32(mask16_of(n - c0 - j * kNB), ccoef + c0 + j * kNB);
  if constexpr (HALF)
    accumulate_half<MR, NB>(a, kp, b, cc, acc);
  else
    accumulate<MR, NB>(a, kp, b, cc, acc);
#pragma GCC unroll 4
  for (int j = 0; j < NB; ++j) {
    const int64_t c = c0 + j * kNB, left = n - c;
    const Requant16 rq(v, c);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      __m512i s = acc[r][j];
      if constexpr (CASE::RS)
        s = _mm512_add_epi32(s, _mm512_set1_epi32(static_cast<int32_t>(rowsum[r])));
      if constexpr (CASE::OUT == kOutLanes)
        store_bytes16(out + r * n + c, rq.template apply<CASE::FIX>(s), left);
      else
        acc[r][j] = rq.template scaled<CASE::FIX>(s);
    }
  }
  if constexpr (CASE::OUT != kOutLanes) {
    static_assert(NB == 2, "lone blocks store their codes in lanes (gemm_rq)");
    store_packed<MR, CASE::OUT == kOutS8>(acc, c0, n, v, out);
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
  // a lone last block: its codes in lanes (store_packed pairs two blocks)
  using Lone = RqCase<CASE::FIX, CASE::RS, kOutLanes>;
  if (blk < blk1 && blk == half)
    rows_rq<1, true, Lone>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
  else if (blk < blk1)
    rows_rq<1, false, Lone>(a, rows, kp, b + blk * bstride, blk * kNB, n, cc, rs, v, out);
}

template <Out OUT>
void gemm_rq_out(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t n,
                 int64_t blk0, int64_t blk1, const int32_t* cc, const int64_t* rs,
                 const RequantVec& v, uint8_t* out) {
  if (v.fix && rs)
    gemm_rq<RqCase<true, true, OUT>>(a, rows, kp, b, n, blk0, blk1, cc, rs, v, out);
  else if (v.fix)
    gemm_rq<RqCase<true, false, OUT>>(a, rows, kp, b, n, blk0, blk1, cc, rs, v, out);
  else if (rs)
    gemm_rq<RqCase<false, true, OUT>>(a, rows, kp, b, n, blk0, blk1, cc, rs, v, out);
  else
    gemm_rq<RqCase<false, false, OUT>>(a, rows, kp, b, n, blk0, blk1, cc, rs, v, out);
}

}  // namespace

void gemm_rq_avx512(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t n,
                    int64_t blk0, int64_t blk1, const int32_t* ccoef, const int64_t* rowsum,
                    const Requant& rq, uint8_t* out) {
  const RequantVec& v = *rq.vec;
  switch (packed_codes(v)) {
    case 1: gemm_rq_out<kOutS8>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out); break;
    case 2: gemm_rq_out<kOutU8>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out); break;
    default: gemm_rq_out<kOutLanes>(a, rows, kp, b, n, blk0, blk1, ccoef, rowsum, v, out);
  }
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

void xor_copy_avx512(uint8_t* dst, const uint8_t* src, int64_t n, uint8_t flip) {
  const __m512i f = _mm512_set1_epi8(static_cast<char>(flip));
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(dst + i, _mm512_xor_si512(_mm512_loadu_si512(src + i), f));
  if (i < n) {
    const __mmask64 mk = (uint64_t{1} << (n - i)) - 1;     // n - i in [1, 63]
    _mm512_mask_storeu_epi8(dst + i, mk, _mm512_xor_si512(_mm512_maskz_loadu_epi8(mk, src + i), f));
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
