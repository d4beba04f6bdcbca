// AVX-512 micro-kernel: a 12x32 register tile (24 zmm accumulators, the A values broadcast
// straight from memory into the FMAs), bias as the accumulators' start, clamp and masked store;
// a column tail of at most 8 in a 16-column vector is computed 8 wide (ymm), so N = 24, 40, ...
// do no FMA work on the columns past N.
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstddef>
#include <cstdint>
#include <limits>

#include "gemm.h"

namespace onert_neon {
namespace {

constexpr int kMr = 12;

inline __mmask16 tail_mask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF)
                 : (n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1));
}

// The last vector of a row of the tile: 16 columns (zmm) or, for a column tail of at most 8,
// 8 columns (ymm: half the FMA work on cores that split a zmm FMA in two, as Zen 4 does).
// fma(s, ...) takes a zmm broadcast (shared with a first vector), fma_at(a, ...) broadcasts
// *a at the vector's own width.
template <bool CLAMP>
inline __m512 clamp16(__m512 v, __m512 lo, __m512 hi) {
  return CLAMP ? _mm512_min_ps(hi, _mm512_max_ps(lo, v)) : v;
}

template <bool HALF>
struct Last {
  using T = __m512;
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static T fma(__m512 s, T b, T acc) { return _mm512_fmadd_ps(s, b, acc); }
  static T fma_at(const float* a, T b, T acc) { return _mm512_fmadd_ps(_mm512_set1_ps(*a), b, acc); }
  template <bool CLAMP>
  static void store(float* p, T v, int64_t n, __m512 lo, __m512 hi) {
    _mm512_mask_storeu_ps(p, tail_mask(n), clamp16<CLAMP>(v, lo, hi));
  }
};
template <>
struct Last<true> {
  using T = __m256;
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static T fma(__m512 s, T b, T acc) {
    return _mm256_fmadd_ps(_mm512_castps512_ps256(s), b, acc);
  }
  static T fma_at(const float* a, T b, T acc) {
    return _mm256_fmadd_ps(_mm256_broadcast_ss(a), b, acc);
  }
  template <bool CLAMP>
  static void store(float* p, T v, int64_t n, __m512 lo, __m512 hi) {
    const __m256 y = CLAMP ? _mm256_min_ps(_mm512_castps512_ps256(hi),
                                           _mm256_max_ps(_mm512_castps512_ps256(lo), v))
                           : v;
    _mm256_mask_storeu_ps(p, static_cast<__mmask8>(tail_mask(n)), y);
  }
};

// MR rows times NV column vectors: NV = 2, 16 + 16 (HALF: 16 + 8) columns; NV = 1, 16 (HALF:
// 8). Every element is bias + the K products in order, whatever the vector width. CLAMP false:
// [lo, hi] is (-inf, inf) and the store skips the min/max (linear bottleneck projections).
template <int MR, int NV, bool HALF, bool CLAMP>
inline void ukernel(int64_t K, const float* a, int64_t lda, const float* b0, const float* bias,
                    float* c, int64_t ldc, int64_t nc, __m512 lo, __m512 hi) {
  using L = Last<HALF>;
  using T = typename L::T;
  const float* bl = NV > 1 ? b0 + K * 16 : b0;   // the last vector's panel
  __m512 acc[MR];
  T last[MR];
  const __m512 bias0 = _mm512_loadu_ps(bias);
  const T bias1 = L::load(NV > 1 ? bias + 16 : bias);
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    if (NV > 1) acc[r] = bias0;
    last[r] = bias1;
  }
  const float* ar[MR];
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) ar[r] = a + r * lda;
  for (int64_t k = 0; k < K; ++k) {
    const T v1 = L::load(bl + k * 16);
    if (NV > 1) {
      const __m512 v0 = _mm512_loadu_ps(b0 + k * 16);
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const __m512 s = _mm512_set1_ps(ar[r][k]);
        acc[r] = _mm512_fmadd_ps(s, v0, acc[r]);
        last[r] = L::fma(s, v1, last[r]);
      }
    } else {
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) last[r] = L::fma_at(ar[r] + k, v1, last[r]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    if (NV > 1) {
      _mm512_storeu_ps(cr, clamp16<CLAMP>(acc[r], lo, hi));
      L::template store<CLAMP>(cr + 16, last[r], nc - 16, lo, hi);
    } else {
      L::template store<CLAMP>(cr, last[r], nc, lo, hi);
    }
  }
}

// The full 12x32 tile (every row, 32 columns) in inline assembly. GCC's code for ukernel<12, 2>
// keeps 11 row offsets in registers, spills three and reloads them every k step; with the rows
// addressed as four base pointers plus 1 or 2 row strides, nothing spills and the loop reaches
// 113-116 GFLOP/s a core on Zen 4 against 107-111 (a loop of independent FMAs: 117). The same
// arithmetic as ukernel (bias, then the K products in order by FMA, then the clamp unless
// `clamp` is false), so the results are identical. The clamp keeps a NaN (max/min return their
// second source when one is NaN: the accumulator goes there), as TFLite's std::min/std::max do.
// Registers: zmm0-23 the accumulators (row r in zmm2r, zmm2r+1), zmm24-25 B's two vectors,
// zmm26-27 the broadcast A values, zmm28-29 the bias, zmm30-31 lo and hi.
#define K12_INIT(z0, z1) "vmovaps %%zmm28, %%zmm" #z0 "\n\t vmovaps %%zmm29, %%zmm" #z1 "\n\t"
#define K12_ROW(src, t, z0, z1)                  \
  "vbroadcastss " src ", %%zmm" #t "\n\t"        \
  "vfmadd231ps %%zmm24, %%zmm" #t ", %%zmm" #z0 "\n\t" \
  "vfmadd231ps %%zmm25, %%zmm" #t ", %%zmm" #z1 "\n\t"
#define K12_CLAMP(z0, z1)                                                             \
  "vmaxps %%zmm" #z0 ", %%zmm30, %%zmm" #z0 "\n\t vminps %%zmm" #z0 ", %%zmm31, %%zmm" #z0 \
  "\n\t vmaxps %%zmm" #z1 ", %%zmm30, %%zmm" #z1 "\n\t vminps %%zmm" #z1 ", %%zmm31, %%zmm" \
  #z1 "\n\t"
#define K12_STORE(z0, z1) \
  "vmovups %%zmm" #z0 ", (%[c])\n\t vmovups %%zmm" #z1 ", 64(%[c])\n\t add %[ldc], %[c]\n\t"

inline void full_tile_asm(int64_t K, const float* a, int64_t lda, const float* b,
                          const float* bias, float* c, int64_t ldc, float lo, float hi,
                          bool clamp) {
  const float* a3 = a + 3 * lda;
  const float* a6 = a + 6 * lda;
  const float* a9 = a + 9 * lda;
  const int64_t row_bytes = lda * 4, panel_bytes = K * 64, ldc_bytes = ldc * 4;
  int64_t steps = K;
  const int64_t do_clamp = clamp;
  asm volatile(
      "vmovups (%[bias]), %%zmm28\n\t vmovups 64(%[bias]), %%zmm29\n\t"
      "vbroadcastss %[lo], %%zmm30\n\t vbroadcastss %[hi], %%zmm31\n\t"
      K12_INIT(0, 1) K12_INIT(2, 3) K12_INIT(4, 5) K12_INIT(6, 7) K12_INIT(8, 9)
      K12_INIT(10, 11) K12_INIT(12, 13) K12_INIT(14, 15) K12_INIT(16, 17) K12_INIT(18, 19)
      K12_INIT(20, 21) K12_INIT(22, 23)
      "1:\n\t"
      "vmovups (%[b]), %%zmm24\n\t vmovups (%[b],%[pb]), %%zmm25\n\t"
      K12_ROW("(%[a0])", 26, 0, 1) K12_ROW("(%[a0],%[s],1)", 27, 2, 3)
      K12_ROW("(%[a0],%[s],2)", 26, 4, 5) K12_ROW("(%[a3])", 27, 6, 7)
      K12_ROW("(%[a3],%[s],1)", 26, 8, 9) K12_ROW("(%[a3],%[s],2)", 27, 10, 11)
      K12_ROW("(%[a6])", 26, 12, 13) K12_ROW("(%[a6],%[s],1)", 27, 14, 15)
      K12_ROW("(%[a6],%[s],2)", 26, 16, 17) K12_ROW("(%[a9])", 27, 18, 19)
      K12_ROW("(%[a9],%[s],1)", 26, 20, 21) K12_ROW("(%[a9],%[s],2)", 27, 22, 23)
      "add $64, %[b]\n\t add $4, %[a0]\n\t add $4, %[a3]\n\t add $4, %[a6]\n\t add $4, %[a9]\n\t"
      "dec %[steps]\n\t jnz 1b\n\t"
      "test %[do_clamp], %[do_clamp]\n\t jz 2f\n\t"
      K12_CLAMP(0, 1) K12_CLAMP(2, 3) K12_CLAMP(4, 5) K12_CLAMP(6, 7) K12_CLAMP(8, 9)
      K12_CLAMP(10, 11) K12_CLAMP(12, 13) K12_CLAMP(14, 15) K12_CLAMP(16, 17)
      K12_CLAMP(18, 19) K12_CLAMP(20, 21) K12_CLAMP(22, 23)
      "2:\n\t"
      K12_STORE(0, 1) K12_STORE(2, 3) K12_STORE(4, 5) K12_STORE(6, 7) K12_STORE(8, 9)
      K12_STORE(10, 11) K12_STORE(12, 13) K12_STORE(14, 15) K12_STORE(16, 17)
      K12_STORE(18, 19) K12_STORE(20, 21) K12_STORE(22, 23)
      : [a0] "+r"(a), [a3] "+r"(a3), [a6] "+r"(a6), [a9] "+r"(a9), [b] "+r"(b),
        [steps] "+r"(steps), [c] "+r"(c)
      : [s] "r"(row_bytes), [pb] "r"(panel_bytes), [ldc] "r"(ldc_bytes), [bias] "r"(bias),
        [lo] "m"(lo), [hi] "m"(hi), [do_clamp] "r"(do_clamp)
      : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
        "xmm28", "xmm29", "xmm30", "xmm31");
}
#undef K12_INIT
#undef K12_ROW
#undef K12_CLAMP
#undef K12_STORE

template <int MR, bool CLAMP>
void tile_cols(const TileArgs& t) {
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
  const float* packed = t.b->data.data();
  const float* bias = t.b->bias.data();
  for (int64_t col = t.col0; col < t.col1; col += 32) {
    const int64_t nc = t.col1 - col;
    const float* bp = packed + (col / 16) * t.K * 16;
    float* c = t.c + col;
    if (MR == kMr && nc >= 32)
      full_tile_asm(t.K, t.a, t.lda, bp, bias + col, c, t.ldc, t.lo, t.hi, CLAMP);
    else if (nc > 24)
      ukernel<MR, 2, false, CLAMP>(t.K, t.a, t.lda, bp, bias + col, c, t.ldc, nc, lo, hi);
    else if (nc > 16)
      ukernel<MR, 2, true, CLAMP>(t.K, t.a, t.lda, bp, bias + col, c, t.ldc, nc, lo, hi);
    else if (nc > 8)
      ukernel<MR, 1, false, CLAMP>(t.K, t.a, t.lda, bp, bias + col, c, t.ldc, nc, lo, hi);
    else
      ukernel<MR, 1, true, CLAMP>(t.K, t.a, t.lda, bp, bias + col, c, t.ldc, nc, lo, hi);
  }
}

template <int MR>
void tile(const TileArgs& t) {
  if (t.lo == -std::numeric_limits<float>::infinity() &&
      t.hi == std::numeric_limits<float>::infinity())
    tile_cols<MR, false>(t);
  else
    tile_cols<MR, true>(t);
}

}  // namespace

void gemm_tile_avx512(const TileArgs& t) {
  switch (t.rows) {
    case 1: tile<1>(t); break;
    case 2: tile<2>(t); break;
    case 3: tile<3>(t); break;
    case 4: tile<4>(t); break;
    case 5: tile<5>(t); break;
    case 6: tile<6>(t); break;
    case 7: tile<7>(t); break;
    case 8: tile<8>(t); break;
    case 9: tile<9>(t); break;
    case 10: tile<10>(t); break;
    case 11: tile<11>(t); break;
    case kMr: tile<kMr>(t); break;
    default: break;
  }
}

}  // namespace onert_neon

#endif  // __x86_64__
