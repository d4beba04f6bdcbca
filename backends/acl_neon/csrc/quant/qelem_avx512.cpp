// AVX-512 depthwise convolution (depth multiplier 1), vectorized over the contiguous NHWC
// channels. With the vector requantization: taps in pairs through vpdpwssd, requantized in
// registers (dw_rows_vec). Otherwise:
// int32 sums of (x - x_zp) * w over the valid taps, 64 channels in registers, then
// the shared vector requantization (requant_row_avx512: per-channel constants, so channels
// rounded as the reference kernel does keep that rounding). The VNNI path (vpdpbusd, taps in
// groups of 4 rows) is in qdepthwise_vnni_avx512.cpp.
#if defined(__x86_64__)
#include "avx512_intrin.h"

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
    mk[j] = mask16_of(left - 16 * j);
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

// With the vector requantization (rq.vec): the sums are of x * w, taps taken in pairs with
// vpdpwssd (x and w as int16: each pair's sum is exact in int32, and the whole sum is the same
// value modulo 2^32 as one tap at a time). cc holds -x_zp * sum(w) per channel, so that
// padding taps (read through `ptrs` from a row of zero-point codes) contribute nothing.
// Packed weights pw: [pair][block of 32 channels][lo, hi][32 int16]; in 128-bit lane L of
// vector h, int16 2q + s is channel 32 * block + 8L + 4h + q of tap 2 * pair + s (0 beyond
// the channels or the taps), the order vpunpck{l,h}wd gives the interleaved inputs.
template <bool S>
inline __m512i load_x16(const uint8_t* p, __mmask32 mk) {
  __m256i v = _mm256_maskz_loadu_epi8(mk, p);
  return S ? _mm512_cvtepi8_epi16(v) : _mm512_cvtepu8_epi16(v);
}

inline __mmask32 mask32_of(int64_t left) {
  return left >= 32 ? static_cast<__mmask32>(0xFFFFFFFFu)
                    : left <= 0 ? static_cast<__mmask32>(0)
                                : static_cast<__mmask32>((1u << left) - 1);
}

// lo, hi += one pair of taps' inputs (xa, xb: 32 channels as int16) times their packed
// weights wp (the pair's block: lo then hi half)
inline void tap_pair(__m512i& lo, __m512i& hi, __m512i xa, __m512i xb, const int16_t* wp) {
  lo = _mm512_dpwssd_epi32(lo, _mm512_unpacklo_epi16(xa, xb), _mm512_load_si512(wp));
  hi = _mm512_dpwssd_epi32(hi, _mm512_unpackhi_epi16(xa, xb), _mm512_load_si512(wp + 32));
}

// The output side of the 32-channel block from channel c: the accumulators (lo, hi) back in
// channel order (lo holds channels 8L + 0..3 of each 128-bit lane L, hi 8L + 4..7), plus cc,
// requantized and stored; constants loaded once (RequantVec arrays cover whole 32-blocks).
struct BlockOut {
  int64_t left;
  __m512i cc0, cc1;
  Requant16 rq0, rq1;

  BlockOut(const int32_t* cc, const RequantVec& v, int64_t c, int64_t C)
      : left(C - c), cc0(_mm512_maskz_loadu_epi32(mask16_of(C - c), cc + c)),
        cc1(_mm512_maskz_loadu_epi32(mask16_of(C - c - 16), cc + c + 16)), rq0(v, c),
        rq1(v, c + 16) {}

  void operator()(__m512i lo, __m512i hi, uint8_t* d) const {
    const __m512i i0 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    store_bytes16(d, rq0(_mm512_add_epi32(_mm512_permutex2var_epi32(lo, i0, hi), cc0)), left);
    if (left > 16) {
      const __m512i i1 = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28,
                                           29, 30, 31);
      store_bytes16(d + 16, rq1(_mm512_add_epi32(_mm512_permutex2var_epi32(lo, i1, hi), cc1)),
                    left - 16);
    }
  }
};

// NB blocks of 32 channels from block cb of one output pixel (taps through `ptrs`)
template <bool S, int NB, int NP>
inline void mblock(const uint8_t* const* ptrs, int64_t np, const int16_t* pw, int64_t nb,
                   int64_t cb, int64_t C, const int32_t* cc, const RequantVec& v,
                   uint8_t* dst) {
  const int64_t c = cb * 32;
  __mmask32 mk[NB];
  __m512i lo[NB], hi[NB];
#pragma GCC unroll 2
  for (int j = 0; j < NB; ++j) {
    mk[j] = mask32_of(C - c - 32 * j);
    lo[j] = _mm512_setzero_si512();
    hi[j] = _mm512_setzero_si512();
  }
  const int64_t n = NP ? NP : np;
#pragma GCC unroll 5
  for (int64_t t = 0; t < n; ++t) {
    const uint8_t* a = ptrs[2 * t] + c;
    const uint8_t* b = ptrs[2 * t + 1] + c;
    const int16_t* wp = pw + (t * nb + cb) * 64;
#pragma GCC unroll 2
    for (int j = 0; j < NB; ++j)
      tap_pair(lo[j], hi[j], load_x16<S>(a + 32 * j, mk[j]), load_x16<S>(b + 32 * j, mk[j]),
               wp + 64 * j);
  }
#pragma GCC unroll 2
  for (int j = 0; j < NB; ++j) BlockOut(cc, v, c + 32 * j, C)(lo[j], hi[j], dst + c + 32 * j);
}

// Block cb of 32 channels of npx output pixels of one row whose windows lie inside the input:
// pixel i's tap t at base + i * step + off[t] (off[2 * np - 1]: any tap, its weights are 0),
// the output side's constants loaded once for all the pixels.
template <bool S, int NP>
inline void mrow(const uint8_t* base, int64_t step, const int64_t* off, int64_t np,
                 int64_t npx, const int16_t* pw, int64_t nb, int64_t cb, int64_t C,
                 const int32_t* cc, const RequantVec& v, uint8_t* dst) {
  const int64_t c = cb * 32;
  const __mmask32 mk = mask32_of(C - c);
  const BlockOut out(cc, v, c, C);
  const int64_t n = NP ? NP : np;
  const uint8_t* px = base + c;
  uint8_t* d = dst + c;
  for (int64_t i = 0; i < npx; ++i, px += step, d += C) {
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
#pragma GCC unroll 5
    for (int64_t t = 0; t < n; ++t)
      tap_pair(lo, hi, load_x16<S>(px + off[2 * t], mk), load_x16<S>(px + off[2 * t + 1], mk),
               pw + (t * nb + cb) * 64);
    out(lo, hi, d);
  }
}

// the 32-channel blocks [cb0, cb1) of one output pixel
template <bool S, int NP>
inline void vpixel(const uint8_t* const* ptrs, int64_t np, const int16_t* pw, int64_t C,
                   const int32_t* cc, const RequantVec& v, uint8_t* dst, int64_t cb0,
                   int64_t cb1) {
  const int64_t nb = (C + 31) / 32;
  int64_t cb = cb0;
  for (; cb + 2 <= cb1; cb += 2) mblock<S, 2, NP>(ptrs, np, pw, nb, cb, C, cc, v, dst);
  if (cb < cb1) mblock<S, 1, NP>(ptrs, np, pw, nb, cb, C, cc, v, dst);
}

template <bool S, int NP>
void dw_rows_vec(const DwParams& p, const uint8_t* x, const int16_t* /*w: p.pw*/,
                 const Requant& rq, uint8_t* out, int64_t rb, int64_t re, int64_t cb0,
                 int64_t cb1) {
  const ConvGeom& g = p.g;
  const RequantVec v = *rq.vec;
  const int64_t C = p.cout, taps = g.kh * g.kw, np = (taps + 1) / 2, nb = (C + 31) / 32;
  uint8_t* pad = new uint8_t[C];
  const int16_t* pw = p.pw;                      // made by depthwise() when mult is 1
  const int32_t* cc = p.wsum;
  const uint8_t** ptrs = new const uint8_t*[2 * np];
  int64_t* off = new int64_t[2 * np];            // a tap's offset from the window's corner
  std::memset(pad, static_cast<uint8_t>(p.x_zp), static_cast<size_t>(C));
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) off[ky * g.kw + kx] = (ky * g.dh * g.iw + kx * g.dw) * C;
  if (taps % 2) off[taps] = off[taps - 1];        // the odd tap's partner (weights 0)
  ptrs[2 * np - 1] = pad;                         // (the same, in the pointer form)
  // output columns whose window lies inside the input columns: [ox0, ox1)
  int64_t ox0 = 0, ox1 = g.ow;
  while (ox0 < g.ow && ox0 * g.sw - g.pad_left < 0) ++ox0;
  while (ox1 > ox0 && (ox1 - 1) * g.sw - g.pad_left + (g.kw - 1) * g.dw >= g.iw) --ox1;
  for (int64_t row = rb; row < re; ++row) {
    const int64_t oy = row % g.oh, b = row / g.oh;
    const int64_t iy0 = oy * g.sh - g.pad_top;
    const bool rows_in = iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih;
    uint8_t* orow = out + (b * g.oh + oy) * g.ow * C;
    if (rows_in && ox1 > ox0) {                   // the row's inner pixels, block by block
      const uint8_t* base = x + ((b * g.ih + iy0) * g.iw + ox0 * g.sw - g.pad_left) * C;
      for (int64_t cb = cb0; cb < cb1; ++cb)
        mrow<S, NP>(base, g.sw * C, off, np, ox1 - ox0, pw, nb, cb, C, cc, v, orow + ox0 * C);
    }
    for (int64_t ox = 0; ox < g.ow; ++ox) {       // the others, pixel by pixel
      if (rows_in && ox == ox0 && ox1 > ox0) {
        ox = ox1 - 1;
        continue;
      }
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        const int64_t iy = iy0 + ky * g.dh;
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          const int64_t ix = ox * g.sw - g.pad_left + kx * g.dw;
          const bool in = iy >= 0 && iy < g.ih && ix >= 0 && ix < g.iw;
          ptrs[ky * g.kw + kx] = in ? x + ((b * g.ih + iy) * g.iw + ix) * C : pad;
        }
      }
      vpixel<S, NP>(ptrs, np, pw, C, cc, v, orow + ox * C, cb0, cb1);
    }
  }
  delete[] off;
  delete[] ptrs;
  delete[] pad;
}

}  // namespace

bool depthwise_vec_avx512(const DwParams& p, const Requant& rq) {
  const bool zp_code = p.x_signed ? p.x_zp >= -128 && p.x_zp <= 127 : p.x_zp >= 0 && p.x_zp <= 255;
  return p.mult == 1 && !rq.fc && rq.vec && rq.vec_c0 == 0 && zp_code && p.pw && p.wsum;
}

void depthwise_rows_avx512(const DwParams& p, const uint8_t* x, const int16_t* w,
                           const Requant& rq, uint8_t* out, int64_t rb, int64_t re,
                           int64_t cb0, int64_t cb1) {
  if (depthwise_vec_avx512(p, rq)) {
    const int64_t nb = (p.cout + 31) / 32;
    if (cb1 < 0 || cb1 > nb) cb1 = nb;
    const bool k9 = p.g.kh * p.g.kw == 9;
    if (p.x_signed)
      (k9 ? dw_rows_vec<true, 5> : dw_rows_vec<true, 0>)(p, x, w, rq, out, rb, re, cb0, cb1);
    else
      (k9 ? dw_rows_vec<false, 5> : dw_rows_vec<false, 0>)(p, x, w, rq, out, rb, re, cb0, cb1);
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
