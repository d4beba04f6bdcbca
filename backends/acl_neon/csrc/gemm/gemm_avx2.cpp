// AVX2/FMA micro-kernel: a 6x16 register tile (12 ymm accumulators, A broadcast from memory),
// bias as the accumulators' start, clamp in the store (a partial panel through a stack tile).
#if defined(__x86_64__)

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gemm.h"

namespace onert_neon {
namespace {

constexpr int kMr = 6;

template <int MR>
inline void ukernel(int64_t K, const float* a, int64_t lda, const float* b, const float* bias,
                    float* c, int64_t ldc, int64_t nc, __m256 lo, __m256 hi) {
  __m256 acc[MR][2];
  const __m256 bias0 = _mm256_loadu_ps(bias), bias1 = _mm256_loadu_ps(bias + 8);
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = bias0;
    acc[r][1] = bias1;
  }
  const float* ar[MR];
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) ar[r] = a + r * lda;
  for (int64_t k = 0; k < K; ++k) {
    const __m256 v0 = _mm256_loadu_ps(b + k * 16), v1 = _mm256_loadu_ps(b + k * 16 + 8);
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m256 s = _mm256_broadcast_ss(ar[r] + k);
      acc[r][0] = _mm256_fmadd_ps(s, v0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(s, v1, acc[r][1]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const __m256 y0 = _mm256_min_ps(_mm256_max_ps(acc[r][0], lo), hi);
    const __m256 y1 = _mm256_min_ps(_mm256_max_ps(acc[r][1], lo), hi);
    float* cr = c + r * ldc;
    if (nc >= 16) {
      _mm256_storeu_ps(cr, y0);
      _mm256_storeu_ps(cr + 8, y1);
    } else {
      float tmp[16];
      _mm256_storeu_ps(tmp, y0);
      _mm256_storeu_ps(tmp + 8, y1);
      std::memcpy(cr, tmp, static_cast<size_t>(nc) * sizeof(float));
    }
  }
}

template <int MR>
void tile(const TileArgs& t) {
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
  const float* packed = t.b->data.data();
  const float* bias = t.b->bias.data();
  for (int64_t col = t.col0; col < t.col1; col += 16)
    ukernel<MR>(t.K, t.a, t.lda, packed + (col / 16) * t.K * 16, bias + col, t.c + col, t.ldc,
                t.col1 - col, lo, hi);
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
