// Quantized depthwise convolution, pooling and table lookups on 8-bit NHWC tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "qgemm.h"

namespace onert_neon {
namespace quant {

struct DwParams {
  ConvGeom g;                      // cin: input channels
  int64_t cout, mult;              // cout = cin * mult
  bool x_signed;
  int32_t x_zp;
  // optional (mult 1), set by DwPacked::attach: the paired-tap weights (64-byte aligned) and
  // -x_zp * sum(w) per channel, which the AVX-512 paired-tap path needs (without them
  // depthwise() takes the other paths, with the same results)
  const int16_t* pw = nullptr;
  const int32_t* wsum = nullptr;
  // optional, set by DwPacked::attach where depthwise_vnni_fits(p) and every weight fits int8:
  // the 4-row-group weights of the AVX-512 VNNI path (64-byte aligned, layout in
  // qdepthwise_vnni_avx512.cpp) and -(x_zp + 128 if x_signed) * sum(w) per channel (mod 2^32)
  const int8_t* pv = nullptr;
  const int32_t* vcc = nullptr;
};

// sizes (int16 / int32 elements) and contents of DwParams::pw and ::wsum (see
// qelem_avx512.cpp for the layout); p.mult must be 1
int64_t depthwise_packed_size(const DwParams& p);
void depthwise_pack(const DwParams& p, const int16_t* w, int16_t* pw, int32_t* wsum);

// the VNNI path's geometry: multiplier 1, dilation 1, 3x3 at column stride 1 or 2, 5x5 at 1
bool depthwise_vnni_fits(const DwParams& p);
// bytes of DwParams::pv; depthwise_pack_vnni fills pv and vcc, false (nothing usable) when a
// weight is outside int8
int64_t depthwise_vnni_size(const DwParams& p);
bool depthwise_pack_vnni(const DwParams& p, const int16_t* w, int8_t* pv, int32_t* vcc);

// the owner of DwParams::pw / ::wsum / ::pv / ::vcc: attach(p, w) packs filter w (mult 1; else
// nothing) once and points p at the packed forms (kept alive by this object)
class DwPacked {
 public:
  void attach(DwParams& p, const int16_t* w);

 private:
  std::vector<int16_t> pw_;
  std::vector<int32_t> wsum_;
  std::vector<int8_t> pv_;
  std::vector<int32_t> vcc_;
};

// y[.., oc] = requant(sum over valid taps (x[.., oc / mult] - x_zp) * w[tap][oc]); w: the
// filter minus its zero point, [kh * kw][cout] int16
void depthwise(const DwParams& p, const uint8_t* x, const int16_t* w, const Requant& rq,
               uint8_t* out, int threads);
#if defined(__x86_64__)
// output rows [rb, re) (batch * oh) of a depth-multiplier-1 depthwise convolution, conv
// requantization (rq.fc false)
void depthwise_rows_avx2(const DwParams& p, const uint8_t* x, const int16_t* w,
                         const Requant& rq, uint8_t* out, int64_t rb, int64_t re);
// the vector path (paired taps, fused requantization) computes only the 32-channel blocks
// [cb0, cb1) (cb1 < 0: all); it is taken when depthwise_vec_avx512(p, rq)
bool depthwise_vec_avx512(const DwParams& p, const Requant& rq);
void depthwise_rows_avx512(const DwParams& p, const uint8_t* x, const int16_t* w,
                           const Requant& rq, uint8_t* out, int64_t rb, int64_t re,
                           int64_t cb0 = 0, int64_t cb1 = -1);
// the VNNI path (4-row tap groups through vpdpbusd, the vector requantization): taken when
// depthwise_vnni_avx512(p, rq); output rows [rb, re), 64-channel blocks [cb0, cb1)
bool depthwise_vnni_avx512(const DwParams& p, const Requant& rq);
void depthwise_rows_vnni_avx512(const DwParams& p, const uint8_t* x, const Requant& rq,
                                uint8_t* out, int64_t rb, int64_t re, int64_t cb0, int64_t cb1);
#endif

namespace {

// f(pixel, tap) for each filter tap of output (b, oy, ox) that reads a real input pixel:
// pixel = (b * ih + iy) * iw + ix, the input pixel's index; tap = ky * kw + kx
template <class F>
inline void for_each_tap(const ConvGeom& g, int64_t b, int64_t oy, int64_t ox, F&& f) {
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    const int64_t iy = oy * g.sh - g.pad_top + ky * g.dh;
    if (iy < 0 || iy >= g.ih) continue;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t ix = ox * g.sw - g.pad_left + kx * g.dw;
      if (ix < 0 || ix >= g.iw) continue;
      f((b * g.ih + iy) * g.iw + ix, ky * g.kw + kx);
    }
  }
}

}  // namespace

struct PoolParams {
  ConvGeom g;                      // kh/kw: the filter, dh = dw = 1, cin = channels
  bool x_signed, average;
  int32_t lo, hi;
};

// AVERAGE (valid taps summed, divided with halves away from zero) or MAX, clamped
void pool(const PoolParams& p, const uint8_t* x, uint8_t* out, int threads);

// out[i] = table[(kinds ? kinds[i] * 65536 : 0) + (a[ia] << 8 | b[ib])] over a 4-D output
// shape, a and b indexed by their element strides (0 where broadcast)
void pair_lookup(const uint8_t* table, const uint8_t* a, const uint8_t* b, const uint8_t* kinds,
                 const int64_t* shape, const int64_t* astr, const int64_t* bstr, uint8_t* out,
                 int threads);

// out[i] = table[x[i]] (256 entries)
void lut8(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* out, int threads);

}  // namespace quant
}  // namespace onert_neon
