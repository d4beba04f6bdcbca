// AVX-512 depthwise convolution (depth multiplier 1), vectorized over the contiguous NHWC
// channels: int32 sums of (x - x_zp) * w over the valid taps, 64 channels in registers, then
// the shared vector requantization (requant_row_avx512: per-channel constants, so channels
// rounded as the reference kernel does keep that rounding).
#if defined(__x86_64__)
// GCC 12 warns about _mm512_undefined_* inside the intrinsics headers (a known false positive)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qelem.h"
#include "qgemm.h"

namespace onert_neon {
namespace quant {

namespace {

constexpr int64_t kChunk = 256;            // channels requantized at once
alignas(64) const int32_t kZeros[kChunk] = {0};

inline __mmask16 mask16(int64_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF)
                    : left <= 0 ? static_cast<__mmask16>(0)
                                : static_cast<__mmask16>((1u << left) - 1);
}

template <bool S>
inline __m512i load_x(const uint8_t* p, __mmask16 mk) {
  __m128i v = _mm_maskz_loadu_epi8(mk, p);
  return S ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v);
}

inline __m512i load_w(const int16_t* p, __mmask16 mk) {
  return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(mk, p));
}

// NV vectors of 16 channels from channel c (the last one masked to `left` channels)
template <bool S, int NV>
inline void block(const DwParams& p, const uint8_t* x, const int16_t* w, int64_t b, int64_t oy,
                  int64_t ox, int64_t c, int64_t left, int32_t* acc) {
  const int64_t C = p.cout;
  const __m512i zp = _mm512_set1_epi32(p.x_zp);
  __mmask16 mk[NV];
  __m512i a[NV];
  for (int j = 0; j < NV; ++j) {
    mk[j] = mask16(left - 16 * j);
    a[j] = _mm512_setzero_si512();
  }
  for_each_tap(p.g, b, oy, ox, [&](int64_t pixel, int64_t tap) {
    const uint8_t* src = x + pixel * C + c;
    const int16_t* wt = w + tap * C + c;
    for (int j = 0; j < NV; ++j) {
      __m512i xv = _mm512_sub_epi32(load_x<S>(src + 16 * j, mk[j]), zp);
      a[j] = _mm512_add_epi32(a[j], _mm512_mullo_epi32(xv, load_w(wt + 16 * j, mk[j])));
    }
  });
  for (int j = 0; j < NV; ++j) _mm512_store_si512(acc + 16 * j, a[j]);
}

template <bool S>
void dw_rows(const DwParams& p, const uint8_t* x, const int16_t* w, const Requant& rq,
             uint8_t* out, int64_t rb, int64_t re) {
  const ConvGeom& g = p.g;
  const int64_t C = p.cout;
  alignas(64) int32_t acc[kChunk];
  for (int64_t row = rb; row < re; ++row) {
    const int64_t oy = row % g.oh, b = row / g.oh;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      uint8_t* dst = out + ((b * g.oh + oy) * g.ow + ox) * C;
      for (int64_t c0 = 0; c0 < C; c0 += kChunk) {
        const int64_t n = C - c0 < kChunk ? C - c0 : kChunk;
        for (int64_t cb = 0; cb < n; cb += 64) {
          const int64_t left = n - cb;
          int32_t* ac = acc + cb;
          if (left > 48) block<S, 4>(p, x, w, b, oy, ox, c0 + cb, left, ac);
          else if (left > 32) block<S, 3>(p, x, w, b, oy, ox, c0 + cb, left, ac);
          else if (left > 16) block<S, 2>(p, x, w, b, oy, ox, c0 + cb, left, ac);
          else block<S, 1>(p, x, w, b, oy, ox, c0 + cb, left, ac);
        }
        requant_row_avx512(acc, kZeros, 0, n, rq.from_channel(c0), dst + c0);
      }
    }
  }
}

}  // namespace

void depthwise_rows_avx512(const DwParams& p, const uint8_t* x, const int16_t* w,
                           const Requant& rq, uint8_t* out, int64_t rb, int64_t re) {
  if (p.x_signed)
    dw_rows<true>(p, x, w, rq, out, rb, re);
  else
    dw_rows<false>(p, x, w, rq, out, rb, re);
}

}  // namespace quant
}  // namespace onert_neon
#endif
