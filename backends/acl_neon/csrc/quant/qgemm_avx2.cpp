// AVX2 kernel of the quantized GEMM: the 8-bit operands widened to int16 and multiplied with
// vpmaddwd (exact: |products| < 2^15 * 2^8, pairs summed in int32).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qgemm.h"

namespace onert_neon {
namespace quant {

namespace {

// MR rows x one block of 16 channels. Per 4-deep step the block is 4 groups of 16 bytes (4
// channels x 4 depths); a group widened to int16 times the row's 4 activations (repeated)
// gives int32 lanes [c0 k01, c0 k23, c1 k01, ...]: adjacent lanes are summed at the end.
template <int MR>
inline void micro(const uint8_t* a, int64_t kp, const int8_t* b, int32_t* c, int64_t ldc) {
  __m256i acc[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < 4; ++g) acc[r][g] = _mm256_setzero_si256();
  for (int64_t q = 0; q < kp; q += 4) {
    __m256i w[4];
    for (int g = 0; g < 4; ++g)
      w[g] = _mm256_cvtepi8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + q * kNB + g * 16)));
    for (int r = 0; r < MR; ++r) {
      int32_t v;
      __builtin_memcpy(&v, a + r * kp + q, 4);
      __m256i av = _mm256_broadcastq_epi64(_mm_cvtepu8_epi16(_mm_cvtsi32_si128(v)));
      for (int g = 0; g < 4; ++g)
        acc[r][g] = _mm256_add_epi32(acc[r][g], _mm256_madd_epi16(av, w[g]));
    }
  }
  for (int r = 0; r < MR; ++r) {
    // hadd pairs: [c0 c1 | c2 c3] per group, interleaved across 128-bit halves
    __m256i s01 = _mm256_hadd_epi32(acc[r][0], acc[r][1]);   // c0 c1 c4 c5 | c2 c3 c6 c7
    __m256i s23 = _mm256_hadd_epi32(acc[r][2], acc[r][3]);   // c8 c9 c12 c13 | c10 c11 c14 c15
    const __m256i perm = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc),
                        _mm256_permutevar8x32_epi32(s01, perm));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * ldc + 8),
                        _mm256_permutevar8x32_epi32(s23, perm));
  }
}

// 8 channels [c, c + 8) of the RequantVec form (c a multiple of 8) into 8 bytes (low half)
inline __m128i requant8(__m256i a, const RequantVec& v, int64_t c) {
  const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.m32 + c));
  __m256i pe = _mm256_mul_epi32(a, m);
  __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(m, 32));
  pe = _mm256_add_epi64(pe, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.k8 + c)));
  po = _mm256_add_epi64(po, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.k8 + c + 4)));
  if (v.fix) {
    const __m256i* th = reinterpret_cast<const __m256i*>(v.th8 + c);
    const __m256i* df = reinterpret_cast<const __m256i*>(v.df8 + c);
    __m256i ne = _mm256_cmpgt_epi64(_mm256_loadu_si256(th), pe);
    __m256i no = _mm256_cmpgt_epi64(_mm256_loadu_si256(th + 1), po);
    pe = _mm256_sub_epi64(pe, _mm256_and_si256(ne, _mm256_loadu_si256(df)));
    po = _mm256_sub_epi64(po, _mm256_and_si256(no, _mm256_loadu_si256(df + 1)));
  }
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
  h = _mm256_srav_epi32(h, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.sh32 + c)));
  h = _mm256_min_epi32(_mm256_max_epi32(h, _mm256_set1_epi32(v.lo_z)),
                       _mm256_set1_epi32(v.hi_z));
  h = _mm256_add_epi32(h, _mm256_set1_epi32(v.zp));
  // the low byte of each lane: 4 bytes per 128-bit half, then the two halves' dwords
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1, -1);
  h = _mm256_shuffle_epi8(h, pick);
  h = _mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
  return _mm256_castsi256_si128(h);
}

}  // namespace

void requant_row_vec_avx2(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                          const Requant& rq, uint8_t* out) {
  const RequantVec v = *rq.vec;         // a local copy: the byte stores cannot alias it
  const __m256i radd = _mm256_set1_epi32(static_cast<int32_t>(row_add));
  alignas(32) int32_t ta[8], tc[8];
  alignas(16) uint8_t tb[16];
  for (int64_t c = 0; c < n; c += 8) {
    const int64_t left = n - c;
    const int32_t* ap = acc + c;
    const int32_t* cp = ccoef + c;
    if (left < 8) {                          // the tail through a padded copy
      for (int i = 0; i < 8; ++i) {
        ta[i] = i < left ? ap[i] : 0;
        tc[i] = i < left ? cp[i] : 0;
      }
      ap = ta;
      cp = tc;
    }
    __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ap)),
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cp)));
    __m128i b = requant8(_mm256_add_epi32(a, radd), v, rq.vec_c0 + c);
    if (left >= 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + c), b);
    } else {
      _mm_store_si128(reinterpret_cast<__m128i*>(tb), b);
      for (int64_t i = 0; i < left; ++i) out[c + i] = tb[i];
    }
  }
}

void gemm_u8s8_avx2(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                    int64_t nblocks, int32_t* c, int64_t ldc) {
  for (int64_t blk = 0; blk < nblocks; ++blk) {
    const int8_t* bb = b + blk * kNB * kp;
    int32_t* cb = c + blk * kNB;
    int64_t r = 0;
    for (; r + 3 <= rows; r += 3) micro<3>(a + r * kp, kp, bb, cb + r * ldc, ldc);
    for (; r < rows; ++r) micro<1>(a + r * kp, kp, bb, cb + r * ldc, ldc);
  }
}

}  // namespace quant
}  // namespace onert_neon
#endif
