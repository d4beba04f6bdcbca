// Quantized GEMM / convolution: baseline kernels, the ISA dispatch and the convolution driver.
#include "qgemm.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "isa.h"
#include "parallel.h"
#include "qfixed.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {
namespace quant {

namespace {

void requant_row_scalar(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                        const Requant& rq, uint8_t* out) {
  for (int64_t c = 0; c < n; ++c) {
    int64_t a = static_cast<int64_t>(acc[c]) + ccoef[c] + row_add;
    int64_t y;
    if (rq.fc) {
      int64_t x = wrap32(a + rq.bias[c]);
      int64_t h = srdhm(wrap32(x << rq.left[c]), rq.m[c]);
      y = rshift_half_up(h, rq.s[c]) + rq.zp_add;
    } else {
      uint64_t tu = static_cast<uint64_t>(a) * static_cast<uint64_t>(rq.m[c]) +
                    static_cast<uint64_t>(rq.k[c]);
      int64_t t = static_cast<int64_t>(tu);
      if (t < rq.thresh[c]) t = static_cast<int64_t>(tu - static_cast<uint64_t>(rq.dfix[c]));
      y = (t >> rq.s[c]) + rq.zp_add;
    }
    y = y < rq.lo ? rq.lo : (y > rq.hi ? rq.hi : y);
    out[c] = static_cast<uint8_t>(static_cast<int32_t>(y));
  }
}

}  // namespace

Requant Requant::from_channel(int64_t c0) const {
  Requant r = *this;
  for (const int64_t** q : {&r.m, &r.k, &r.thresh, &r.dfix})
    if (*q) *q += c0;
  for (const int32_t** q : {&r.s, &r.left, &r.bias, &r.fc_m32})
    if (*q) *q += c0;
  r.vec_c0 += c0;
  return r;
}

void RequantVecStore::attach(Requant& rq, int64_t n) {
  rq.vec = nullptr;
  rq.fc_m32 = nullptr;
  if (n < 1) return;
  if (!rq.fc) {
    if (build(rq, n)) rq.vec = &v_;
    return;
  }
  for (int64_t c = 0; c < n; ++c)
    if (rq.m[c] < 0 || rq.m[c] > INT32_MAX) return;
  m32_.assign(static_cast<size_t>(n + 32), 0);    // + 32: read from c + 1, 16 at a time
  for (int64_t c = 0; c < n; ++c) m32_[c] = static_cast<int32_t>(rq.m[c]);
  rq.fc_m32 = m32_.data();
}

bool RequantVecStore::build(const Requant& rq, int64_t n) {
  for (int64_t c = 0; c < n; ++c)
    if (rq.m[c] < INT32_MIN || rq.m[c] > INT32_MAX || rq.s[c] < 32 || rq.s[c] > 63) return false;
  const int64_t np = (n + 31) / 32 * 32;    // whole blocks of 32 (the depthwise kernels' unit)
  m32_.assign(np + 16, 0);                  // + 16: read from c + 1 (odd channels)
  sh32_.assign(np, 0);
  for (auto* v : {&k8_, &k16_, &df8_, &df16_}) v->assign(np, 0);
  th8_.assign(np, INT64_MIN);
  th16_.assign(np, INT64_MIN);
  // group of g channels: [even channels][odd channels]
  auto at = [](int64_t c, int64_t g) { return c / g * g + (c % 2) * (g / 2) + (c % g) / 2; };
  bool fix = false;
  for (int64_t c = 0; c < n; ++c) {
    m32_[c] = static_cast<int32_t>(rq.m[c]);
    sh32_[c] = rq.s[c] - 32;
    k8_[at(c, 8)] = k16_[at(c, 16)] = rq.k[c];
    th8_[at(c, 8)] = th16_[at(c, 16)] = rq.thresh[c];
    df8_[at(c, 8)] = df16_[at(c, 16)] = rq.dfix[c];
    fix = fix || (rq.thresh[c] != INT64_MIN && rq.dfix[c] != 0);
  }
  v_.m32 = m32_.data();
  v_.sh32 = sh32_.data();
  v_.k8 = k8_.data(); v_.k16 = k16_.data();
  v_.th8 = th8_.data(); v_.th16 = th16_.data();
  v_.df8 = df8_.data(); v_.df16 = df16_.data();
  v_.fix = fix;
  v_.zp = rq.zp_add;
  v_.lo_z = rq.lo - rq.zp_add;
  v_.hi_z = rq.hi - rq.zp_add;
  return true;
}

void requant_row(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                 const Requant& rq, uint8_t* out) {
#if defined(__x86_64__)
  if (rq.fc && rq.fc_m32 && active_isa() == Isa::Avx512) {
    requant_row_fc_avx512(acc, ccoef, row_add, n, rq, out);
    return;
  }
  if (!rq.fc && row_add >= INT32_MIN && row_add <= INT32_MAX) {
    const Isa isa = active_isa();
    if (rq.vec && isa == Isa::Avx512 && rq.vec_c0 % 16 == 0) {
      requant_row_vec_avx512(acc, ccoef, row_add, n, rq, out);
      return;
    }
    if (rq.vec && isa == Isa::Avx2 && rq.vec_c0 % 8 == 0) {
      requant_row_vec_avx2(acc, ccoef, row_add, n, rq, out);
      return;
    }
    if (isa == Isa::Avx512) {
      requant_row_avx512(acc, ccoef, row_add, n, rq, out);
      return;
    }
  }
#endif
  requant_row_scalar(acc, ccoef, row_add, n, rq, out);
}

void pack_weights(const int8_t* w, int64_t n, int64_t k, int64_t kp, int8_t* packed) {
  assert(kp % 4 == 0 && kp >= k);
  int64_t nb = (n + kNB - 1) / kNB;
  std::memset(packed, 0, static_cast<size_t>(nb * kNB * kp));
  for (int64_t j = 0; j < n; ++j) {
    int64_t blk = j / kNB, lane = j % kNB;
    for (int64_t q = 0; q < k; ++q)
      packed[blk * kNB * kp + (q / 4) * kNB * 4 + lane * 4 + (q % 4)] = w[j * k + q];
  }
}

static void gemm_u8s8_base(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                           int64_t nblocks, int32_t* c, int64_t ldc) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* ar = a + r * kp;
    for (int64_t blk = 0; blk < nblocks; ++blk) {
      const int8_t* bb = b + blk * kNB * kp;
      int32_t* cr = c + r * ldc + blk * kNB;
#if defined(__aarch64__)
      int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
      for (int64_t q = 0; q < kp; q += 4) {
        // 4 activations widened to int16, each multiplied with 16 channels' weights
        uint8x8_t a4 = vreinterpret_u8_u32(vdup_n_u32(0));
        std::memcpy(&a4, ar + q, 4);
        int16x8_t aw = vreinterpretq_s16_u16(vmovl_u8(a4));
        const int8_t* bq = bb + (q / 4) * kNB * 4;
        for (int g = 0; g < 4; ++g) {        // channels 4g..4g+3: 16 bytes = 4 ch x 4 k
          int8x16_t w = vld1q_s8(bq + g * 16);
          int16x8_t wl = vmovl_s8(vget_low_s8(w)), wh = vmovl_s8(vget_high_s8(w));
          int16x4_t al = vget_low_s16(aw);
          // products of channel lanes: wl = [c0k0..c0k3, c1k0..c1k3]
          int32x4_t p0 = vmull_s16(vget_low_s16(wl), al);
          int32x4_t p1 = vmull_s16(vget_high_s16(wl), al);
          int32x4_t p2 = vmull_s16(vget_low_s16(wh), al);
          int32x4_t p3 = vmull_s16(vget_high_s16(wh), al);
          int32x4_t s01 = vpaddq_s32(p0, p1), s23 = vpaddq_s32(p2, p3);
          acc[g] = vaddq_s32(acc[g], vpaddq_s32(s01, s23));
        }
      }
      for (int g = 0; g < 4; ++g) vst1q_s32(cr + 4 * g, acc[g]);
#else
      int32_t acc[kNB] = {0};
      for (int64_t q = 0; q < kp; q += 4) {
        const int8_t* bq = bb + (q / 4) * kNB * 4;
        for (int j = 0; j < kNB; ++j)
          for (int t = 0; t < 4; ++t) acc[j] += int32_t(ar[q + t]) * int32_t(bq[j * 4 + t]);
      }
      for (int j = 0; j < kNB; ++j) cr[j] = acc[j];
#endif
    }
  }
}

void gemm_u8s8(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t nblocks,
               int32_t* c, int64_t ldc) {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: gemm_u8s8_avx512(a, rows, kp, b, nblocks, c, ldc); return;
    case Isa::Avx2: gemm_u8s8_avx2(a, rows, kp, b, nblocks, c, ldc); return;
#endif
    default: gemm_u8s8_base(a, rows, kp, b, nblocks, c, ldc);
  }
}

namespace {

// dst[i] = src[i] ^ flip for i < n, 8 bytes at a time
inline void xor_copy(uint8_t* dst, const uint8_t* src, int64_t n, uint8_t flip) {
  const uint64_t f8 = 0x0101010101010101ull * flip;
  if (n >= 8 && n <= 16) {                     // two overlapping words (a 3-wide window row)
    uint64_t v, u;
    std::memcpy(&v, src, 8);
    std::memcpy(&u, src + n - 8, 8);
    v ^= f8;
    u ^= f8;
    std::memcpy(dst, &v, 8);
    std::memcpy(dst + n - 8, &u, 8);
    return;
  }
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    v ^= f8;
    std::memcpy(dst + i, &v, 8);
  }
  for (; i < n; ++i) dst[i] = src[i] ^ flip;
}

// 16 bytes from src, XOR flip in every byte, to dst (one vector load and store)
inline void xor_copy16(uint8_t* dst, const uint8_t* src, uint64_t f8) {
  uint64_t v[2];
  std::memcpy(v, src, 16);
  v[0] ^= f8;
  v[1] ^= f8;
  std::memcpy(dst, v, 16);
}

// bytes that im2col_rows may write past the end of its `a` rows (kept allocated by callers)
constexpr int64_t kIm2colSlack = 16;

// rows [m0, m0 + rows) of the im2col matrix as `a` codes, zero past k; returns row sums
void im2col_rows(const ConvParams& p, const uint8_t* x, int64_t m0, int64_t rows, uint8_t* a,
                 int64_t* rowsum) {
  const ConvGeom& g = p.g;
  const uint8_t flip = p.x_signed ? 0x80 : 0;
  const uint64_t f8 = 0x0101010101010101ull * flip;
  const int64_t span = g.kw * g.cin, row_bytes = g.iw * g.cin;
  const int64_t x_bytes = g.batch * g.ih * row_bytes;
  const bool direct = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pad_top == 0 &&
                      g.pad_left == 0 && g.oh == g.ih && g.ow == g.iw;
  auto row_sum = [&](const uint8_t* ar) {
    int64_t s = 0;
    if (p.rcoef)
      for (int64_t q = 0; q < p.k; ++q) s += ar[q];
    return s * p.rcoef;
  };
  if (direct && p.kp == g.cin) {    // the rows are x's own, contiguous: one pass
#if defined(__x86_64__)
    if (active_isa() == Isa::Avx512)
      xor_copy_avx512(a, x + m0 * g.cin, rows * g.cin, flip);
    else
#endif
      xor_copy(a, x + m0 * g.cin, rows * g.cin, flip);
    if (p.rcoef)
      for (int64_t r = 0; r < rows; ++r) rowsum[r] = row_sum(a + r * p.kp);
    else                              // no row term (int8 input): no pass over the rows
      std::fill(rowsum, rowsum + rows, int64_t{0});
    return;
  }
  // windows with rows of at most 16 bytes (the stem's 3x3x3): the output pixels of a row whose
  // windows lie inside the input are copied in one run, 16 bytes per window row (the extra
  // ones land where the next row, the zero padding or the next window goes); the columns
  // [ox_in0, ox_in1) of such pixels, and the bound that keeps the last read inside x
  const bool runs = span <= 16 && g.dw == 1 && g.dh == 1;
  const int64_t ox_in0 = (g.pad_left + g.sw - 1) / g.sw;
  const int64_t ox_in1 = g.iw - g.kw + g.pad_left < 0 ? 0 : (g.iw - g.kw + g.pad_left) / g.sw + 1;
  // output pixel (b, oy, ox) of row m0, then stepped along with r
  int64_t ox = m0 % g.ow, oy = (m0 / g.ow) % g.oh, b = m0 / g.ow / g.oh;
  for (int64_t r = 0; r < rows; ++r) {
    if (r > 0 && ++ox == g.ow) {
      ox = 0;
      if (++oy == g.oh) { oy = 0; ++b; }
    }
    uint8_t* ar = a + r * p.kp;
    const int64_t ix0 = ox * g.sw - g.pad_left, iy0 = oy * g.sh - g.pad_top;
    if (runs && ox >= ox_in0 && ox < ox_in1 && iy0 >= 0 && iy0 + g.kh - 1 < g.ih) {
      const uint8_t* xr = x + ((b * g.ih + iy0) * g.iw - g.pad_left) * g.cin;
      int64_t end = std::min({ox + (rows - r), ox_in1, g.ow});
      while (end > ox && (xr - x) + (end - 1) * g.sw * g.cin + (g.kh - 1) * row_bytes + 16 >
                             x_bytes)
        --end;                                 // a window whose 16-byte reads pass x's end
      if (end > ox) {
        const int64_t step = g.sw * g.cin;
        for (int64_t q = ox; q < end; ++q, ar += p.kp) {
          const uint8_t* src = xr + q * step;
          for (int64_t ky = 0; ky < g.kh; ++ky)
            xor_copy16(ar + ky * span, src + ky * row_bytes, f8);
          for (int64_t t = p.k; t < p.kp; ++t) ar[t] = 0;
          rowsum[r + q - ox] = row_sum(ar);
        }
        r += end - ox - 1;                     // the loop steps to the run's next pixel
        ox = end - 1;
        continue;
      }
    }
    const bool cols_in = g.dw == 1 && ix0 >= 0 && ix0 + g.kw <= g.iw;
    const int64_t at = ((b * g.ih + iy0) * g.iw + ix0) * g.cin, step = g.dh * row_bytes;
    if (direct) {
      xor_copy(ar, x + (m0 + r) * g.cin, g.cin, flip);
    } else if (span <= 16 && cols_in && iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih &&
               at + (g.kh - 1) * step + 16 <= x_bytes) {
      // a window inside the input with rows of at most 16 bytes: 16 bytes per row (the extra
      // ones land where the next row, the zero padding or the next window goes)
      for (int64_t ky = 0; ky < g.kh; ++ky) xor_copy16(ar + ky * span, x + at + ky * step, f8);
    } else {
      uint8_t* dst = ar;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        const int64_t iy = iy0 + ky * g.dh;
        if (cols_in && iy >= 0 && iy < g.ih) {     // the window's row: contiguous input bytes
          xor_copy(dst, x + ((b * g.ih + iy) * g.iw + ix0) * g.cin, span, flip);
          dst += span;
          continue;
        }
        for (int64_t kx = 0; kx < g.kw; ++kx, dst += g.cin) {
          const int64_t ix = ix0 + kx * g.dw;
          if (iy < 0 || iy >= g.ih || ix < 0 || ix >= g.iw)
            std::memset(dst, p.pad_code, static_cast<size_t>(g.cin));
          else
            xor_copy(dst, x + ((b * g.ih + iy) * g.iw + ix) * g.cin, g.cin, flip);
        }
      }
    }
    for (int64_t q = p.k; q < p.kp; ++q) ar[q] = 0;
    rowsum[r] = row_sum(ar);
  }
}

}  // namespace

void conv_u8s8(const ConvParams& p, const uint8_t* x, const int8_t* packed,
               const int32_t* ccoef, const Requant& rq, uint8_t* out, int threads) {
  const ConvGeom& g = p.g;
  assert(p.kp % 4 == 0 && p.kp >= p.k && p.k == g.kh * g.kw * g.cin);
  const int64_t m_total = g.batch * g.oh * g.ow;
  const int64_t nblocks = (p.cout + kNB - 1) / kNB, ldc = nblocks * kNB;
  // rows per tile: keep the tile's a panel and accumulators in L2
  int64_t tile = 48;
  while (tile > 12 && tile * (p.kp + 4 * ldc) > (256 << 10)) tile -= 12;
  // One unit of work per thread: rows split in balanced ranges of whole micro-kernel row
  // groups (6 rows), so that consecutive layers split alike and each core reads mostly the
  // rows it wrote; layers of fewer than two row groups per thread (fully connected) split the
  // channel blocks, which also splits the weight reads. (Splitting the channels of 7x7 and
  // 14x14 maps too, as before, was 4% slower on MobileNetV2 int8 at 2 threads: the next
  // layer read half of every row from the other core.)
  const int64_t t = threads < 1 ? 1 : threads;
  const bool csplit = t > 1 && nblocks >= 2 * t && m_total < 2 * 6 * t;
  const int64_t units = csplit ? t : (t < (m_total + 5) / 6 ? t : (m_total + 5) / 6);
#if defined(__x86_64__)
  // AVX-512: requantization fused into the GEMM
  const bool fused = rq.vec && rq.vec_c0 == 0 && active_isa() == Isa::Avx512;
#else
  const bool fused = false;
#endif
  // row boundary u of `units` balanced ranges, rounded to a multiple of 6
  auto row_bound = [&](int64_t u) -> int64_t {
    if (u >= units) return m_total;
    int64_t r = (u * m_total / units + 3) / 6 * 6;
    return r < m_total ? r : m_total;
  };
  parallel_range(static_cast<int>(units), units, 1, [&](int64_t ub, int64_t ue) {
    std::vector<uint8_t> a(static_cast<size_t>(tile * p.kp + kIm2colSlack));
    std::vector<int32_t> c(fused ? 0 : static_cast<size_t>(tile * ldc));
    std::vector<int64_t> rowsum(static_cast<size_t>(tile));
    for (int64_t u = ub; u < ue; ++u) {
      const int64_t r0 = csplit ? 0 : row_bound(u), r1 = csplit ? m_total : row_bound(u + 1);
      const int64_t blk0 = csplit ? u * nblocks / units : 0;
      const int64_t blk1 = csplit ? (u + 1) * nblocks / units : nblocks;
      const int64_t c0 = blk0 * kNB, c1 = blk1 * kNB < p.cout ? blk1 * kNB : p.cout;
      const Requant rqc = rq.from_channel(c0);
      for (int64_t m0 = r0; m0 < r1; m0 += tile) {
        const int64_t rows = r1 - m0 < tile ? r1 - m0 : tile;
        im2col_rows(p, x, m0, rows, a.data(), rowsum.data());
#if defined(__x86_64__)
        if (fused) {
          gemm_rq_avx512(a.data(), rows, p.kp, packed, p.cout, blk0, blk1, ccoef,
                         p.rcoef ? rowsum.data() : nullptr, rq, out + m0 * p.cout);
          continue;
        }
#endif
        gemm_u8s8(a.data(), rows, p.kp, packed + blk0 * kNB * p.kp, blk1 - blk0, c.data() + c0,
                  ldc);
        for (int64_t r = 0; r < rows; ++r)
          requant_row(c.data() + r * ldc + c0, ccoef + c0, rowsum[r], c1 - c0, rqc,
                      out + (m0 + r) * p.cout + c0);
      }
    }
  });
}

}  // namespace quant
}  // namespace onert_neon
