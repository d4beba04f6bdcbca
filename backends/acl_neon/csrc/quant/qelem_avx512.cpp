// AVX-512 depthwise convolution (depth multiplier 1), vectorized over the contiguous NHWC
// channels: int32 sums of (x - x_zp) * w over the valid taps, 64 channels in registers, then
// the shared vector requantization (requant_row_avx512: per-channel constants, so channels
// rounded as the reference kernel does keep that rounding).
#if defined(__x86_64__)
// GCC 12 warns about _mm512_undefined_* inside the intrinsics headers (a known false positive)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "qelem.h"
#include "qgemm.h"
#include "qreq_avx512.h"

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

// With the vector requantization (rq.vec): NV vectors of 16 channels from c (the last one
// masked to `left` channels) of one output pixel, taps read through `ptrs` (padding taps point
// at a row of zero-point codes), requantized in registers. The sums are of x * w: cc holds
// -x_zp * sum(w) per channel, so that padding taps contribute nothing.
template <bool S, int NV, int TAPS>
inline void vblock(const uint8_t* const* ptrs, int64_t taps, const int16_t* w, int64_t C,
                   int64_t c, int64_t left, const int32_t* cc, const RequantVec& v,
                   uint8_t* dst) {
  __mmask16 mk[NV];
  __m512i a[NV];
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j) {
    mk[j] = mask16_of(left - 16 * j);
    a[j] = _mm512_maskz_loadu_epi32(mk[j], cc + c + 16 * j);
  }
  const int64_t nt = TAPS ? TAPS : taps;
#pragma GCC unroll 9
  for (int64_t t = 0; t < nt; ++t) {
    const uint8_t* src = ptrs[t] + c;
    const int16_t* wt = w + t * C + c;
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j)
      a[j] = _mm512_add_epi32(a[j], _mm512_mullo_epi32(load_x<S>(src + 16 * j, mk[j]),
                                                       load_w(wt + 16 * j, mk[j])));
  }
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j)
    store_bytes16(dst + c + 16 * j, requant16_avx512(a[j], v, c + 16 * j), left - 16 * j);
}

template <bool S, int TAPS>
inline void vpixel(const uint8_t* const* ptrs, int64_t taps, const int16_t* w, int64_t C,
                   const int32_t* cc, const RequantVec& v, uint8_t* dst) {
  for (int64_t c = 0; c < C; c += 64) {
    const int64_t left = C - c;
    if (left > 48) vblock<S, 4, TAPS>(ptrs, taps, w, C, c, left, cc, v, dst);
    else if (left > 32) vblock<S, 3, TAPS>(ptrs, taps, w, C, c, left, cc, v, dst);
    else if (left > 16) vblock<S, 2, TAPS>(ptrs, taps, w, C, c, left, cc, v, dst);
    else vblock<S, 1, TAPS>(ptrs, taps, w, C, c, left, cc, v, dst);
  }
}

template <bool S, int TAPS>
void dw_rows_vec(const DwParams& p, const uint8_t* x, const int16_t* w, const Requant& rq,
                 uint8_t* out, int64_t rb, int64_t re) {
  const ConvGeom& g = p.g;
  const RequantVec v = *rq.vec;
  const int64_t C = p.cout, taps = g.kh * g.kw;
  uint8_t* pad = new uint8_t[C];
  int32_t* cc = new int32_t[C];
  const uint8_t** ptrs = new const uint8_t*[taps];
  int64_t* off = new int64_t[taps];              // a tap's offset from the window's corner
  std::memset(pad, static_cast<uint8_t>(p.x_zp), static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    int64_t sw = 0;
    for (int64_t t = 0; t < taps; ++t) sw += w[t * C + c];
    cc[c] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(-p.x_zp * sw)));
  }
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) off[ky * g.kw + kx] = (ky * g.dh * g.iw + kx * g.dw) * C;
  // output columns whose window lies inside the input columns: [ox0, ox1)
  int64_t ox0 = 0, ox1 = g.ow;
  while (ox0 < g.ow && ox0 * g.sw - g.pad_left < 0) ++ox0;
  while (ox1 > ox0 && (ox1 - 1) * g.sw - g.pad_left + (g.kw - 1) * g.dw >= g.iw) --ox1;
  for (int64_t row = rb; row < re; ++row) {
    const int64_t oy = row % g.oh, b = row / g.oh;
    const int64_t iy0 = oy * g.sh - g.pad_top;
    const bool rows_in = iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      if (rows_in && ox >= ox0 && ox < ox1) {
        const uint8_t* base = x + ((b * g.ih + iy0) * g.iw + ox * g.sw - g.pad_left) * C;
        for (int64_t t = 0; t < taps; ++t) ptrs[t] = base + off[t];
      } else {
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          const int64_t iy = iy0 + ky * g.dh;
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const int64_t ix = ox * g.sw - g.pad_left + kx * g.dw;
            const bool in = iy >= 0 && iy < g.ih && ix >= 0 && ix < g.iw;
            ptrs[ky * g.kw + kx] = in ? x + ((b * g.ih + iy) * g.iw + ix) * C : pad;
          }
        }
      }
      vpixel<S, TAPS>(ptrs, taps, w, C, cc, v, out + ((b * g.oh + oy) * g.ow + ox) * C);
    }
  }
  delete[] off;
  delete[] ptrs;
  delete[] cc;
  delete[] pad;
}

}  // namespace

void depthwise_rows_avx512(const DwParams& p, const uint8_t* x, const int16_t* w,
                           const Requant& rq, uint8_t* out, int64_t rb, int64_t re) {
  const bool zp_code = p.x_signed ? p.x_zp >= -128 && p.x_zp <= 127 : p.x_zp >= 0 && p.x_zp <= 255;
  if (rq.vec && rq.vec_c0 == 0 && zp_code) {
    const bool k9 = p.g.kh * p.g.kw == 9;
    if (p.x_signed)
      (k9 ? dw_rows_vec<true, 9> : dw_rows_vec<true, 0>)(p, x, w, rq, out, rb, re);
    else
      (k9 ? dw_rows_vec<false, 9> : dw_rows_vec<false, 0>)(p, x, w, rq, out, rb, re);
    return;
  }
  if (p.x_signed)
    dw_rows<true>(p, x, w, rq, out, rb, re);
  else
    dw_rows<false>(p, x, w, rq, out, rb, re);
}

}  // namespace quant
}  // namespace onert_neon
#endif
