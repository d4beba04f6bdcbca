// AVX2 depthwise convolution (depth multiplier 1), vectorized over the contiguous NHWC
// channels: int32 sums of (x - x_zp) * w over the valid taps, 32 channels in registers, the
// channels past the last multiple of 8 in scalar code; then the shared requantization.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qelem.h"
#include "qgemm.h"

namespace onert_neon {
namespace quant {

namespace {

constexpr int64_t kChunk = 256;            // channels requantized at once
alignas(32) const int32_t kZeros[kChunk] = {0};

template <bool S>
inline __m256i load_x(const uint8_t* p) {
  __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return S ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
}

inline __m256i load_w(const int16_t* p) {
  return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

template <bool S, int NV>
inline void block(const DwParams& p, const uint8_t* x, const int16_t* w, int64_t b, int64_t oy,
                  int64_t ox, int64_t c, int32_t* acc) {
  const int64_t C = p.cout;
  const __m256i zp = _mm256_set1_epi32(p.x_zp);
  __m256i a[NV];
  for (int j = 0; j < NV; ++j) a[j] = _mm256_setzero_si256();
  for_each_tap(p.g, b, oy, ox, [&](int64_t pixel, int64_t tap) {
    const uint8_t* src = x + pixel * C + c;
    const int16_t* wt = w + tap * C + c;
    for (int j = 0; j < NV; ++j) {
      __m256i xv = _mm256_sub_epi32(load_x<S>(src + 8 * j), zp);
      a[j] = _mm256_add_epi32(a[j], _mm256_mullo_epi32(xv, load_w(wt + 8 * j)));
    }
  });
  for (int j = 0; j < NV; ++j)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8 * j), a[j]);
}

// channels [c, c + n) one at a time (those past the last multiple of 8)
template <bool S>
inline void tail(const DwParams& p, const uint8_t* x, const int16_t* w, int64_t b, int64_t oy,
                 int64_t ox, int64_t c, int64_t n, int32_t* acc) {
  const int64_t C = p.cout;
  for (int64_t i = 0; i < n; ++i) acc[i] = 0;
  for_each_tap(p.g, b, oy, ox, [&](int64_t pixel, int64_t tap) {
    const uint8_t* src = x + pixel * C + c;
    const int16_t* wt = w + tap * C + c;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t xv = S ? int32_t(static_cast<int8_t>(src[i])) : int32_t(src[i]);
      acc[i] += (xv - p.x_zp) * int32_t(wt[i]);
    }
  });
}

template <bool S>
void dw_rows(const DwParams& p, const uint8_t* x, const int16_t* w, const Requant& rq,
             uint8_t* out, int64_t rb, int64_t re) {
  const ConvGeom& g = p.g;
  const int64_t C = p.cout;
  alignas(32) int32_t acc[kChunk];
  for (int64_t row = rb; row < re; ++row) {
    const int64_t oy = row % g.oh, b = row / g.oh;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      uint8_t* dst = out + ((b * g.oh + oy) * g.ow + ox) * C;
      for (int64_t c0 = 0; c0 < C; c0 += kChunk) {
        const int64_t n = C - c0 < kChunk ? C - c0 : kChunk;
        int64_t cb = 0;
        for (; cb + 32 <= n; cb += 32) block<S, 4>(p, x, w, b, oy, ox, c0 + cb, acc + cb);
        for (; cb + 8 <= n; cb += 8) block<S, 1>(p, x, w, b, oy, ox, c0 + cb, acc + cb);
        tail<S>(p, x, w, b, oy, ox, c0 + cb, n - cb, acc + cb);
        requant_row(acc, kZeros, 0, n, rq.from_channel(c0), dst + c0);
      }
    }
  }
}

}  // namespace

void depthwise_rows_avx2(const DwParams& p, const uint8_t* x, const int16_t* w,
                         const Requant& rq, uint8_t* out, int64_t rb, int64_t re) {
  if (p.x_signed)
    dw_rows<true>(p, x, w, rq, out, rb, re);
  else
    dw_rows<false>(p, x, w, rq, out, rb, re);
}

}  // namespace quant
}  // namespace onert_neon
#endif
