// AVX-512 micro-kernel: a 12x32 register tile (24 zmm accumulators, the A values broadcast
// straight from memory into the FMAs), bias as the accumulators' start, clamp and masked store.
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstddef>
#include <cstdint>

#include "gemm.h"

namespace onert_neon {
namespace {

constexpr int kMr = 12;

inline __mmask16 tail_mask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF)
                 : (n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1));
}

template <int MR, int NV>
inline void ukernel(int64_t K, const float* a, int64_t lda, const float* b0, const float* bias,
                    float* c, int64_t ldc, int64_t nc, __m512 lo, __m512 hi) {
  const float* b1 = b0 + K * 16;
  __m512 acc[MR][NV];
  const __m512 bias0 = _mm512_loadu_ps(bias);
  const __m512 bias1 = NV > 1 ? _mm512_loadu_ps(bias + 16) : bias0;
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = bias0;
    if (NV > 1) acc[r][NV - 1] = bias1;
  }
  const float* ar[MR];
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) ar[r] = a + r * lda;
  for (int64_t k = 0; k < K; ++k) {
    const __m512 v0 = _mm512_loadu_ps(b0 + k * 16);
    const __m512 v1 = NV > 1 ? _mm512_loadu_ps(b1 + k * 16) : v0;
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m512 s = _mm512_set1_ps(ar[r][k]);
      acc[r][0] = _mm512_fmadd_ps(s, v0, acc[r][0]);
      if (NV > 1) acc[r][NV - 1] = _mm512_fmadd_ps(s, v1, acc[r][NV - 1]);
    }
  }
  const __mmask16 m0 = tail_mask(nc), m1 = tail_mask(nc - 16);
  #pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    _mm512_mask_storeu_ps(cr, m0, _mm512_min_ps(_mm512_max_ps(acc[r][0], lo), hi));
    if (NV > 1)
      _mm512_mask_storeu_ps(cr + 16, m1, _mm512_min_ps(_mm512_max_ps(acc[r][NV - 1], lo), hi));
  }
}

template <int MR>
void tile(const TileArgs& t) {
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
  const float* packed = t.b->data.data();
  const float* bias = t.b->bias.data();
  for (int64_t col = t.col0; col < t.col1; col += 32) {
    const int64_t nc = t.col1 - col;
    const float* bp = packed + (col / 16) * t.K * 16;
    if (nc > 16)
      ukernel<MR, 2>(t.K, t.a, t.lda, bp, bias + col, t.c + col, t.ldc, nc, lo, hi);
    else
      ukernel<MR, 1>(t.K, t.a, t.lda, bp, bias + col, t.c + col, t.ldc, nc, lo, hi);
  }
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
