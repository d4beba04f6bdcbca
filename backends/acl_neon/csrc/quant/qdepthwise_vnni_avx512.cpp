// AVX-512 VNNI depthwise convolution of 8-bit NHWC tensors (3x3 at stride 1 or 2, 5x5 at
// stride 1; qelem.h's depthwise_vnni_fits): taps in groups of 4 rows of one column.
// The other AVX-512 depthwise paths are in qelem_avx512.cpp.
//
// vpdpbusd adds 4 products of u8 inputs and s8 weights per channel to an int32 lane, exactly:
// the inputs as u8 (int8 ones + 128, which vcc takes back out with the zero point), the
// weights (w - w_zp) as s8. A window column's rows 4g..4g+3 (rows past the filter: weight 0)
// are interleaved once per 64 channels into 4 vectors q_j (128-bit lane L, dword i: channel
// 16L + 4j + i, its 4 rows' bytes) and used by every output of the row whose window holds the
// column; the sums come back to channel order by a 4x4 transpose of 128-bit lanes. Padding
// rows and columns read the zero point's code (they add 0 once vcc is added). pv: per
// 64-channel block, group g, column kx and j, the 64 weight bytes in the q_j layout.
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

constexpr int kVnniOut = 16;                        // output pixels per chunk of a row

// The vector widths of the path: 64 channels (zmm, 4 lanes) or, for a channel tail of at most
// 32, 32 (ymm, 2 lanes). sums(a, o) transposes the lanes: o[L] (zmm) holds channels 16L ..
// 16L + 15 of the block.
struct Zmm {
  using T = __m512i;
  static constexpr int kLanes = 4;
  static T zero() { return _mm512_setzero_si512(); }
  static T load(const uint8_t* p, int64_t n) {
    return _mm512_maskz_loadu_epi8(n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1, p);
  }
  static T flip(T v) { return _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))); }
  static T lo8(T a, T b) { return _mm512_unpacklo_epi8(a, b); }
  static T hi8(T a, T b) { return _mm512_unpackhi_epi8(a, b); }
  static T lo16(T a, T b) { return _mm512_unpacklo_epi16(a, b); }
  static T hi16(T a, T b) { return _mm512_unpackhi_epi16(a, b); }
  static T dot(T acc, T a, T w) { return _mm512_dpbusd_epi32(acc, a, w); }
  static T wload(const int8_t* p) { return _mm512_load_si512(p); }
  static void sums(const T* a, __m512i* o) {
    const T t0 = _mm512_shuffle_i32x4(a[0], a[1], 0x44);    // a0.L0 a0.L1 a1.L0 a1.L1
    const T t1 = _mm512_shuffle_i32x4(a[2], a[3], 0x44);
    const T t2 = _mm512_shuffle_i32x4(a[0], a[1], 0xEE);    // a0.L2 a0.L3 a1.L2 a1.L3
    const T t3 = _mm512_shuffle_i32x4(a[2], a[3], 0xEE);
    o[0] = _mm512_shuffle_i32x4(t0, t1, 0x88);
    o[1] = _mm512_shuffle_i32x4(t0, t1, 0xDD);
    o[2] = _mm512_shuffle_i32x4(t2, t3, 0x88);
    o[3] = _mm512_shuffle_i32x4(t2, t3, 0xDD);
  }
};

struct Ymm {
  using T = __m256i;
  static constexpr int kLanes = 2;
  static T zero() { return _mm256_setzero_si256(); }
  static T load(const uint8_t* p, int64_t n) {
    return _mm256_maskz_loadu_epi8(n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1, p);
  }
  static T flip(T v) { return _mm256_xor_si256(v, _mm256_set1_epi8(static_cast<char>(0x80))); }
  static T lo8(T a, T b) { return _mm256_unpacklo_epi8(a, b); }
  static T hi8(T a, T b) { return _mm256_unpackhi_epi8(a, b); }
  static T lo16(T a, T b) { return _mm256_unpacklo_epi16(a, b); }
  static T hi16(T a, T b) { return _mm256_unpackhi_epi16(a, b); }
  static T dot(T acc, T a, T w) { return _mm256_dpbusd_epi32(acc, a, w); }
  static T wload(const int8_t* p) { return _mm256_load_si256(reinterpret_cast<const T*>(p)); }
  static void sums(const T* a, __m512i* o) {
    const __m512i z01 = _mm512_inserti64x4(_mm512_castsi256_si512(a[0]), a[1], 1);
    const __m512i z23 = _mm512_inserti64x4(_mm512_castsi256_si512(a[2]), a[3], 1);
    o[0] = _mm512_shuffle_i32x4(z01, z23, 0x88);
    o[1] = _mm512_shuffle_i32x4(z01, z23, 0xDD);
  }
};

// The 64 output codes of one pixel's four vectors of sums s (channels 16L .. 16L + 15 in
// s[L]), requantized by rq4[L] (a block's channels from c0: the constants are padded to whole
// 64-channel blocks when the block has more than 32 channels)
template <bool FIX>
__attribute__((always_inline)) inline __m512i codes64(const Requant16 (&rq4)[4],
                                                      const __m512i* s, __m512i lo, __m512i hi,
                                                      bool is_signed) {
  const __m512i y0 = rq4[0].scaled<FIX>(s[0]), y1 = rq4[1].scaled<FIX>(s[1]);
  const __m512i y2 = rq4[2].scaled<FIX>(s[2]), y3 = rq4[3].scaled<FIX>(s[3]);
  return is_signed ? pack_codes4<true>(y0, y1, y2, y3, lo, hi)
                   : pack_codes4<false>(y0, y1, y2, y3, lo, hi);
}

// One channel block (V::kLanes * 16 channels from c0, `left` of them real) of output row
// `orow`: K x K filter in G groups of 4 rows (`rows`: the window's input rows, nullptr for
// padding), column stride SW, weights `wp` (this block's vectors of the 64-channel layout:
// a ymm block reads the low halves), chunk by chunk of the row.
template <bool S, int K, int SW, class V>
inline void vnni_block(const DwParams& p, const uint8_t* const* rows, const int8_t* wp,
                       const RequantVec& rv, int64_t c0, uint8_t* orow) {
  using T = typename V::T;
  constexpr int G = (K + 3) / 4, NW = G * K * 4, NL = V::kLanes;
  constexpr int kCols = (kVnniOut - 1) * SW + K;
  const ConvGeom& g = p.g;
  const int64_t C = p.cout, iw = g.iw, left = C - c0;
  alignas(64) T cols[kCols * G * 4];               // the chunk's interleaved columns
  alignas(64) __m512i sums[kVnniOut * NL];         // the chunk's sums, channel order
  alignas(64) uint8_t pad[64];                     // the zero point's code
  std::memset(pad, static_cast<uint8_t>(p.x_zp), sizeof(pad));
  T wv[NW];
#pragma GCC unroll 40
  for (int i = 0; i < NW; ++i) wv[i] = V::wload(wp + 64 * i);
  __m512i cc[NL];
  for (int L = 0; L < NL; ++L)
    cc[L] = _mm512_maskz_loadu_epi32(mask16_of(left - 16 * L), p.vcc + c0 + 16 * L);
  // 64-channel blocks whose codes pack_codes4 can give (qreq_avx512.h): four vectors a pixel
  // packed and stored at once, not requantized and stored one vector at a time (MobileNetV2
  // int8's 17 depthwise convolutions at 1 thread: 720 -> 659 us, trace self-times)
  const int packed = NL == 4 ? packed_codes(rv) : 0;
  const int64_t step = NL == 4 ? 16 : 0;           // (a ymm block's constants end at c0 + 32)
  const Requant16 rq4[4] = {Requant16(rv, c0), Requant16(rv, c0 + step),
                            Requant16(rv, c0 + 2 * step), Requant16(rv, c0 + 3 * step)};
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(rv.lo_z));
  const __m512i hi = _mm512_set1_epi8(static_cast<char>(rv.hi_z));
  for (int64_t ox0 = 0; ox0 < g.ow; ox0 += kVnniOut) {
    const int nout = static_cast<int>(g.ow - ox0 < kVnniOut ? g.ow - ox0 : kVnniOut);
    const int ncol = (nout - 1) * SW + K;
    const int64_t x0 = ox0 * SW - g.pad_left;
    for (int col = 0; col < ncol; ++col) {
      const int64_t ix = x0 + col;
      const bool in = ix >= 0 && ix < iw;
      for (int gi = 0; gi < G; ++gi) {
        T r4[4];
        for (int r = 0; r < 4; ++r) {
          const int ky = 4 * gi + r;
          const bool real = in && rows[ky];
          r4[r] = ky >= K ? V::zero() : real ? V::load(rows[ky] + ix * C + c0, left)
                                             : V::load(pad, 64);
          if (S && ky < K) r4[r] = V::flip(r4[r]);
        }
        const T t0 = V::lo8(r4[0], r4[1]), t1 = V::hi8(r4[0], r4[1]);
        const T t2 = V::lo8(r4[2], r4[3]), t3 = V::hi8(r4[2], r4[3]);
        T* q = cols + (col * G + gi) * 4;
        q[0] = V::lo16(t0, t2);
        q[1] = V::hi16(t0, t2);
        q[2] = V::lo16(t1, t3);
        q[3] = V::hi16(t1, t3);
      }
    }
    for (int o = 0; o < nout; ++o) {
      T a[4] = {V::zero(), V::zero(), V::zero(), V::zero()};
#pragma GCC unroll 2
      for (int gi = 0; gi < G; ++gi)
#pragma GCC unroll 5
        for (int kx = 0; kx < K; ++kx) {
          const T* q = cols + ((o * SW + kx) * G + gi) * 4;
          const T* w = wv + (gi * K + kx) * 4;
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) a[j] = V::dot(a[j], q[j], w[j]);
        }
      __m512i t[NL];
      V::sums(a, t);
      for (int L = 0; L < NL; ++L) sums[o * NL + L] = _mm512_add_epi32(t[L], cc[L]);
    }
    if constexpr (NL == 4) {
      if (packed) {         // a pixel's 64 channels: one pack_codes4, one store
        uint8_t* d = orow + ox0 * C + c0;
        for (int o = 0; o < nout; ++o, d += C) {
          const __m512i* s = sums + o * NL;
          const __m512i b = rv.fix ? codes64<true>(rq4, s, lo, hi, packed == 1)
                                   : codes64<false>(rq4, s, lo, hi, packed == 1);
          if (left >= 64)
            _mm512_storeu_si512(d, b);
          else
            _mm512_mask_storeu_epi8(d, (__mmask64{1} << left) - 1, b);
        }
        continue;
      }
    }
    for (int L = 0; L < NL && 16 * L < left; ++L) {
      const Requant16 rq16(rv, c0 + 16 * L);
      uint8_t* d = orow + ox0 * C + c0 + 16 * L;
      for (int o = 0; o < nout; ++o, d += C)
        store_bytes16(d, rq16(sums[o * NL + L]), left - 16 * L);
    }
  }
}

template <bool S, int K, int SW>
void dw_rows_vnni(const DwParams& p, const uint8_t* x, const Requant& rq, uint8_t* out,
                  int64_t rb, int64_t re, int64_t cb0, int64_t cb1) {
  constexpr int G = (K + 3) / 4;
  const ConvGeom& g = p.g;
  const int64_t C = p.cout;
  for (int64_t row = rb; row < re; ++row) {
    const int64_t oy = row % g.oh, b = row / g.oh;
    const uint8_t* rows[4 * G];
    for (int r = 0; r < 4 * G; ++r) {
      const int64_t iy = oy * g.sh - g.pad_top + r;
      rows[r] = r < K && iy >= 0 && iy < g.ih ? x + (b * g.ih + iy) * g.iw * C : nullptr;
    }
    uint8_t* orow = out + (b * g.oh + oy) * g.ow * C;
    for (int64_t cb = cb0; cb < cb1; ++cb) {
      const int8_t* wp = p.pv + cb * G * K * 4 * 64;
      if (C - cb * 64 > 32)
        vnni_block<S, K, SW, Zmm>(p, rows, wp, *rq.vec, cb * 64, orow);
      else
        vnni_block<S, K, SW, Ymm>(p, rows, wp, *rq.vec, cb * 64, orow);
    }
  }
}

}  // namespace

bool depthwise_vnni_avx512(const DwParams& p, const Requant& rq) {
  return p.pv && p.vcc && depthwise_vnni_fits(p) && !rq.fc && rq.vec && rq.vec_c0 == 0;
}

void depthwise_rows_vnni_avx512(const DwParams& p, const uint8_t* x, const Requant& rq,
                                uint8_t* out, int64_t rb, int64_t re, int64_t cb0, int64_t cb1) {
  const bool k3 = p.g.kh == 3, s1 = p.g.sw == 1;           // (5x5: stride 1)
  auto fn = p.x_signed ? (k3 ? (s1 ? dw_rows_vnni<true, 3, 1> : dw_rows_vnni<true, 3, 2>)
                             : dw_rows_vnni<true, 5, 1>)
                       : (k3 ? (s1 ? dw_rows_vnni<false, 3, 1> : dw_rows_vnni<false, 3, 2>)
                             : dw_rows_vnni<false, 5, 1>);
  fn(p, x, rq, out, rb, re, cb0, cb1);
}

}  // namespace quant
}  // namespace onert_neon
#endif
