// AVX-512 micro-kernel: a 12x32 register tile (24 zmm accumulators, the A values broadcast
// straight from memory into the FMAs), bias as the accumulators' start, clamp and masked store;
// a column tail of at most 8 in a 16-column vector is computed 8 wide (ymm), so N = 24, 40, ...
// do no FMA work on the columns past N. Full-height tiles (12 rows, 9 to 32 columns) run the
// inline-assembly kernels of gemm_tile12_avx512.h; row tails and 8-column tails run ukernel.
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstddef>
#include <cstdint>
#include <limits>

#include "gemm.h"
#include "gemm_tile12_avx512.h"

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

// One or two rows over kWide full 16-column panels at once (FULLY_CONNECTED heads, M = 1): B is
// read once, from L3 or memory, and kWide concurrent streams keep more of its lines in flight
// than a 32-column tile's two (1280x1000 weights in L3: 196 -> 81 us, from memory 307 -> 247 us
// in a C++ probe); the kWide * MR accumulators also hide the FMA latency the 2-vector tile
// exposes. Each element is still bias + its K products in order.
constexpr int kWide = 8;

template <int MR, bool CLAMP>
inline void wide_panels(int64_t K, const float* a, int64_t lda, const float* bp,
                        const float* bias, float* c, int64_t ldc, __m512 lo, __m512 hi) {
  __m512 acc[MR][kWide];
  #pragma GCC unroll 16
  for (int j = 0; j < kWide; ++j) {
    const __m512 b = _mm512_loadu_ps(bias + 16 * j);
    #pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) acc[r][j] = b;
  }
  for (int64_t k = 0; k < K; ++k) {
    __m512 s[MR];
    #pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) s[r] = _mm512_set1_ps(a[r * lda + k]);
    #pragma GCC unroll 16
    for (int j = 0; j < kWide; ++j) {
      const __m512 v = _mm512_loadu_ps(bp + (j * K + k) * 16);
      #pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) acc[r][j] = _mm512_fmadd_ps(s[r], v, acc[r][j]);
    }
  }
  #pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) {
    #pragma GCC unroll 16
    for (int j = 0; j < kWide; ++j)
      _mm512_storeu_ps(c + r * ldc + 16 * j, clamp16<CLAMP>(acc[r][j], lo, hi));
  }
}

template <int MR, bool CLAMP>
void tile_cols(const TileArgs& t) {
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
  const float* packed = t.b->data.data();
  const float* bias = t.b->bias.data();
  int64_t col = t.col0;
  if constexpr (MR <= 2)
    for (; col + 16 * kWide <= t.col1; col += 16 * kWide)
      wide_panels<MR, CLAMP>(t.K, t.a, t.lda, packed + (col / 16) * t.K * 16, bias + col,
                             t.c + col, t.ldc, lo, hi);
  for (; col < t.col1; col += 32) {
    const int64_t nc = t.col1 - col;
    const float* bp = packed + (col / 16) * t.K * 16;
    float* c = t.c + col;
    if (MR == kMr && nc > 8 && t.K > 0)   // a full-height tile: the assembly kernels
      tile12::tile_of(nc < 32 ? nc : 32, t.prefetch, t.K, t.a, t.lda, bp, bias + col, c,
                      t.ldc, t.lo, t.hi, CLAMP);
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
