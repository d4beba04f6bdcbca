// AVX2/FMA micro-kernel: a 6x16 register tile (12 ymm accumulators, A broadcast from memory),
// bias as the accumulators' start, clamp in the store (a partial panel through a stack tile);
// a column tail of at most 8 is computed 6x8.
#if defined(__x86_64__)

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gemm.h"

namespace onert_neon {
namespace {

constexpr int kMr = 6;

// MR rows times NV 8-column vectors (NV = 1 for a column tail of at most 8)
template <int MR, int NV>
inline void ukernel(int64_t K, const float* a, int64_t lda, const float* b, const float* bias,
                    float* c, int64_t ldc, int64_t nc, __m256 lo, __m256 hi) {
  __m256 acc[MR][NV];
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_loadu_ps(bias + 8 * v);
  const float* ar[MR];
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) ar[r] = a + r * lda;
  for (int64_t k = 0; k < K; ++k) {
    __m256 v[NV];
    for (int j = 0; j < NV; ++j) v[j] = _mm256_loadu_ps(b + k * 16 + 8 * j);
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m256 s = _mm256_broadcast_ss(ar[r] + k);
      for (int j = 0; j < NV; ++j) acc[r][j] = _mm256_fmadd_ps(s, v[j], acc[r][j]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    float tmp[16];
    for (int j = 0; j < NV; ++j) {
      const __m256 y = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[r][j]));   // a NaN stays NaN
      if (nc >= 8 * NV) _mm256_storeu_ps(cr + 8 * j, y);
      else _mm256_storeu_ps(tmp + 8 * j, y);
    }
    if (nc < 8 * NV) std::memcpy(cr, tmp, static_cast<size_t>(nc) * sizeof(float));
  }
}

template <int MR>
void tile(const TileArgs& t) {
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
  const float* packed = t.b->data.data();
  const float* bias = t.b->bias.data();
  for (int64_t col = t.col0; col < t.col1; col += 16) {
    const int64_t nc = t.col1 - col;
    const float* bp = packed + (col / 16) * t.K * 16;
    if (nc > 8)
      ukernel<MR, 2>(t.K, t.a, t.lda, bp, bias + col, t.c + col, t.ldc, nc, lo, hi);
    else
      ukernel<MR, 1>(t.K, t.a, t.lda, bp, bias + col, t.c + col, t.ldc, nc, lo, hi);
  }
}

}  // namespace

void gemm_tile_avx2(const TileArgs& t) {
  switch (t.rows) {
    case 1: tile<1>(t); break;
    case 2: tile<2>(t); break;
    case 3: tile<3>(t); break;
    case 4: tile<4>(t); break;
    case 5: tile<5>(t); break;
    case kMr: tile<kMr>(t); break;
    default: break;
  }
}

}  // namespace onert_neon

#endif  // __x86_64__
