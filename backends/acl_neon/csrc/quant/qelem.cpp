// Depthwise convolution, pooling and lookups (portable loops the compiler vectorizes).
#include "qelem.h"

#include <cassert>
#include <vector>

#include "isa.h"
#include "parallel.h"

namespace onert_neon {
namespace quant {

namespace {

// ac[c] += (src[c] - zp) * wt[c] (restrict: the byte input may not alias the sums)
template <class T>
inline void accumulate(int32_t* __restrict ac, const T* __restrict src,
                       const int16_t* __restrict wt, int32_t zp, int64_t n) {
  for (int64_t c = 0; c < n; ++c) ac[c] += (int32_t(src[c]) - zp) * int32_t(wt[c]);
}

template <class T>
void dw_rows(const DwParams& p, const T* x, const int16_t* w, const Requant& rq, uint8_t* out,
             int64_t rb, int64_t re) {
  const ConvGeom& g = p.g;
  const int64_t C = p.cout, cin = g.cin, mult = p.mult;
  std::vector<int32_t> acc(static_cast<size_t>(C));
  std::vector<int32_t> zeros(static_cast<size_t>(C), 0);
  std::vector<int16_t> xs(static_cast<size_t>(C));
  const int32_t zp = p.x_zp;
  for (int64_t row = rb; row < re; ++row) {
    int64_t oy = row % g.oh, b = row / g.oh;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      int32_t* ac = acc.data();
      for (int64_t c = 0; c < C; ++c) ac[c] = 0;
      for_each_tap(g, b, oy, ox, [&](int64_t pixel, int64_t tap) {
        const T* src = x + pixel * cin;
        const int16_t* wt = w + tap * C;
        if (mult == 1) {
          accumulate(ac, src, wt, zp, C);
        } else {
          int16_t* xv = xs.data();
          for (int64_t c = 0; c < C; ++c) xv[c] = int16_t(int32_t(src[c / mult]) - zp);
          for (int64_t c = 0; c < C; ++c) ac[c] += int32_t(xv[c]) * int32_t(wt[c]);
        }
      });
      requant_row(ac, zeros.data(), 0, C, rq, out + ((b * g.oh + oy) * g.ow + ox) * C);
    }
  }
}

template <class T>
void pool_rows(const PoolParams& p, const T* x, T* out, int64_t rb, int64_t re) {
  const ConvGeom& g = p.g;
  const int64_t C = g.cin;
  std::vector<int32_t> acc(static_cast<size_t>(C));
  for (int64_t row = rb; row < re; ++row) {
    int64_t oy = row % g.oh, b = row / g.oh;
    int64_t y0 = oy * g.sh - g.pad_top, y1 = y0 + g.kh;
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > g.ih ? g.ih : y1;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      int64_t x0 = ox * g.sw - g.pad_left, x1 = x0 + g.kw;
      x0 = x0 < 0 ? 0 : x0;
      x1 = x1 > g.iw ? g.iw : x1;
      int32_t* ac = acc.data();
      const int32_t init = p.average ? 0 : -2147483647 - 1;
      for (int64_t c = 0; c < C; ++c) ac[c] = init;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) {
          const T* src = x + ((b * g.ih + iy) * g.iw + ix) * C;
          if (p.average) {
            for (int64_t c = 0; c < C; ++c) ac[c] += src[c];
          } else {
            for (int64_t c = 0; c < C; ++c) ac[c] = ac[c] > src[c] ? ac[c] : int32_t(src[c]);
          }
        }
      int32_t count = static_cast<int32_t>((y1 - y0) * (x1 - x0));
      count = count < 1 ? 1 : count;
      T* dst = out + ((b * g.oh + oy) * g.ow + ox) * C;
      for (int64_t c = 0; c < C; ++c) {
        int32_t v = ac[c];
        if (p.average) {
          int32_t mag = ((v < 0 ? -v : v) + count / 2) / count;
          v = v > 0 ? mag : -mag;
        }
        v = v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
        dst[c] = static_cast<T>(v);
      }
    }
  }
}

}  // namespace

int64_t depthwise_packed_size(const DwParams& p) {
  return (p.g.kh * p.g.kw + 1) / 2 * ((p.cout + 31) / 32) * 64;
}

void depthwise_pack(const DwParams& p, const int16_t* w, int16_t* pw, int32_t* wsum) {
  assert(p.mult == 1);
  const int64_t C = p.cout, taps = p.g.kh * p.g.kw, nb = (C + 31) / 32;
  const int64_t n = depthwise_packed_size(p);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = i & 1, q = (i >> 1) & 3, L = (i >> 3) & 3, h = (i >> 5) & 1;
    const int64_t blk = i >> 6, cb = blk % nb, t = 2 * (blk / nb) + s;
    const int64_t ch = cb * 32 + 8 * L + 4 * h + q;
    pw[i] = ch < C && t < taps ? w[t * C + ch] : int16_t(0);
  }
  for (int64_t c = 0; c < C; ++c) {
    int64_t sw = 0;
    for (int64_t t = 0; t < taps; ++t) sw += w[t * C + c];
    wsum[c] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(-p.x_zp * sw)));
  }
}

bool depthwise_vnni_fits(const DwParams& p) {
  const ConvGeom& g = p.g;
  // (5x5 at stride 2 is no faster than the paired taps: 2 groups for 5 rows, each column read
  // by 2.5 outputs; measured, left to them)
  return p.mult == 1 && g.kh == g.kw && g.dh == 1 && g.dw == 1 &&
         ((g.kh == 3 && (g.sw == 1 || g.sw == 2)) || (g.kh == 5 && g.sw == 1));
}

int64_t depthwise_vnni_size(const DwParams& p) {
  return (p.cout + 63) / 64 * ((p.g.kh + 3) / 4) * p.g.kw * 4 * 64;
}

bool depthwise_pack_vnni(const DwParams& p, const int16_t* w, int8_t* pv, int32_t* vcc) {
  assert(depthwise_vnni_fits(p));
  const int64_t C = p.cout, taps = p.g.kh * p.g.kw;
  for (int64_t i = 0; i < taps * C; ++i)
    if (w[i] < -128 || w[i] > 127) return false;
  // byte i: r = i % 4 (row in the group), dword i/4 % 4 (channel in the 4), L = i/16 % 4 (the
  // 128-bit lane), then j (the vector), kx, the group, the 64-channel block
  const int64_t G = (p.g.kh + 3) / 4, KW = p.g.kw, n = depthwise_vnni_size(p);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = i & 3, q = (i >> 2) & 3, L = (i >> 4) & 3, j = (i >> 6) & 3;
    const int64_t rest = i >> 8, kx = rest % KW, gi = rest / KW % G, blk = rest / KW / G;
    const int64_t ky = 4 * gi + r, ch = 64 * blk + 16 * L + 4 * j + q;
    pv[i] = ky < p.g.kh && ch < C ? static_cast<int8_t>(w[(ky * KW + kx) * C + ch]) : 0;
  }
  const int64_t offset = p.x_zp + (p.x_signed ? 128 : 0);    // the inputs' u8 form: x + 128
  for (int64_t c = 0; c < C; ++c) {
    int64_t sw = 0;
    for (int64_t t = 0; t < taps; ++t) sw += w[t * C + c];
    vcc[c] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(-offset * sw)));
  }
  return true;
}

void DwPacked::attach(DwParams& p, const int16_t* w) {
  if (p.mult != 1) return;
  pw_.assign(static_cast<size_t>(depthwise_packed_size(p) + 32), 0);   // + 32: 64-byte align
  wsum_.assign(static_cast<size_t>(p.cout), 0);
  int16_t* a = reinterpret_cast<int16_t*>((reinterpret_cast<uintptr_t>(pw_.data()) + 63) &
                                          ~static_cast<uintptr_t>(63));
  depthwise_pack(p, w, a, wsum_.data());
  p.pw = a;
  p.wsum = wsum_.data();
  if (!depthwise_vnni_fits(p)) return;
  pv_.assign(static_cast<size_t>(depthwise_vnni_size(p) + 64), 0);
  vcc_.assign(static_cast<size_t>(p.cout), 0);
  int8_t* v = reinterpret_cast<int8_t*>((reinterpret_cast<uintptr_t>(pv_.data()) + 63) &
                                        ~static_cast<uintptr_t>(63));
  if (depthwise_pack_vnni(p, w, v, vcc_.data())) {
    p.pv = v;
    p.vcc = vcc_.data();
  }
}

void depthwise(const DwParams& p, const uint8_t* x, const int16_t* w, const Requant& rq,
               uint8_t* out, int threads) {
  assert(p.cout == p.g.cin * p.mult);
  const int64_t rows = p.g.batch * p.g.oh;
  const int64_t grain = 1 + (1 << 14) / (p.g.ow * p.cout * p.g.kh * p.g.kw + 1);
#if defined(__x86_64__)
  if (active_isa() == Isa::Avx512 && depthwise_vnni_avx512(p, rq)) {
    // few rows per thread that do not split evenly (7x7 maps): one range of whole 64-channel
    // blocks per thread instead, over all the rows
    const int64_t nb = (p.cout + 63) / 64;
    const bool by_blocks = threads > 1 && rows % threads != 0 && rows < 8 * threads &&
                           nb >= threads && (rows + grain - 1) / grain >= threads;
    if (by_blocks)
      parallel_range(threads, threads, 1, [&](int64_t b, int64_t e) {
        depthwise_rows_vnni_avx512(p, x, rq, out, 0, rows, b * nb / threads, e * nb / threads);
      });
    else
      parallel_range(threads, rows, grain, [&](int64_t b, int64_t e) {
        depthwise_rows_vnni_avx512(p, x, rq, out, b, e, 0, nb);
      });
    return;
  }
  // few rows per thread that do not split evenly (7x7 maps): one range of whole 32-channel
  // blocks per thread instead, over all the rows
  const int64_t nb = (p.cout + 31) / 32;
  if (threads > 1 && rows % threads != 0 && rows < 8 * threads && nb >= threads &&
      (rows + grain - 1) / grain >= threads && active_isa() == Isa::Avx512 &&
      depthwise_vec_avx512(p, rq)) {
    parallel_range(threads, threads, 1, [&](int64_t b, int64_t e) {
      depthwise_rows_avx512(p, x, w, rq, out, 0, rows, b * nb / threads, e * nb / threads);
    });
    return;
  }
#endif
  parallel_range(threads, rows, grain, [&](int64_t b, int64_t e) {
#if defined(__x86_64__)
    if (p.mult == 1 && !rq.fc) {
      switch (active_isa()) {
        case Isa::Avx512: depthwise_rows_avx512(p, x, w, rq, out, b, e); return;
        case Isa::Avx2: depthwise_rows_avx2(p, x, w, rq, out, b, e); return;
        default: break;
      }
    }
#endif
    if (p.x_signed)
      dw_rows(p, reinterpret_cast<const int8_t*>(x), w, rq, out, b, e);
    else
      dw_rows(p, x, w, rq, out, b, e);
  });
}

void pool(const PoolParams& p, const uint8_t* x, uint8_t* out, int threads) {
  const int64_t rows = p.g.batch * p.g.oh;
  const int64_t grain = 1 + (1 << 14) / (p.g.ow * p.g.cin * p.g.kh * p.g.kw + 1);
  parallel_range(threads, rows, grain, [&](int64_t b, int64_t e) {
    if (p.x_signed)
      pool_rows(p, reinterpret_cast<const int8_t*>(x), reinterpret_cast<int8_t*>(out), b, e);
    else
      pool_rows(p, x, out, b, e);
  });
}

void pair_lookup(const uint8_t* table, const uint8_t* a, const uint8_t* b, const uint8_t* kinds,
                 const int64_t* shape, const int64_t* astr, const int64_t* bstr, uint8_t* out,
                 int threads) {
  const int64_t rows = shape[0] * shape[1] * shape[2], n = shape[3];
  parallel_range(threads, rows, 1 + (1 << 15) / (n + 1), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      int64_t i2 = r % shape[2], t = r / shape[2], i1 = t % shape[1], i0 = t / shape[1];
      const uint8_t* ar = a + i0 * astr[0] + i1 * astr[1] + i2 * astr[2];
      const uint8_t* br = b + i0 * bstr[0] + i1 * bstr[1] + i2 * bstr[2];
      const uint8_t* kr = kinds ? kinds + r * n : nullptr;
      uint8_t* o = out + r * n;
      const int64_t sa = astr[3], sb = bstr[3];
      if (kr) {
        for (int64_t j = 0; j < n; ++j)
          o[j] = table[(int64_t(kr[j]) << 16) | (int64_t(ar[j * sa]) << 8) | br[j * sb]];
      } else {
        for (int64_t j = 0; j < n; ++j) o[j] = table[(int64_t(ar[j * sa]) << 8) | br[j * sb]];
      }
    }
  });
}

void lut8(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* out, int threads) {
  parallel_range(threads, n, int64_t{1} << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = table[x[i]];
  });
}

}  // namespace quant
}  // namespace onert_neon
