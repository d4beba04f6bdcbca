// C++ tests of the quantized depthwise convolution, pooling and table lookups against scalar
// references.
#include <cstdint>
#include <vector>

#include "qelem.h"
#include "qtest_ref.h"
#include "testing.h"

using namespace onert_neon::quant;
using qtest::Rng;

namespace {

// narrow_w: weights within int8 for uint8 inputs too (the AVX-512 VNNI path takes them)
void check_dw(bool x_signed, ConvGeom g, int64_t mult, int threads, uint64_t seed,
              bool vec = false, bool narrow_w = false) {
  Rng rng(seed);
  const int64_t C = g.cin * mult, taps = g.kh * g.kw;
  const int32_t xzp = x_signed ? static_cast<int32_t>(rng.uniform(-128, 127))
                               : static_cast<int32_t>(rng.uniform(0, 255));
  std::vector<int32_t> xv(g.batch * g.ih * g.iw * g.cin);
  for (auto& v : xv) v = static_cast<int32_t>(x_signed ? rng.uniform(-128, 127) : rng.uniform(0, 255));
  std::vector<int16_t> w(taps * C);        // the filter minus its zero point
  for (auto& v : w)
    v = static_cast<int16_t>(x_signed || narrow_w ? rng.uniform(-128, 127) : rng.uniform(-255, 255));
  qtest::ChannelParams cp(C, rng, 2000, vec);
  const int64_t split = C - C % 8 == C ? C / 2 : C - C % 8;
  const int32_t yzp = x_signed ? -9 : 121, lo = x_signed ? -100 : 3, hi = x_signed ? 127 : 250;
  qtest::RequantBuild b(cp.mult, cp.shift, cp.bias, split, yzp, seed % 2 == 1, lo, hi);
  if (vec) CHECK(b.use_vec());
  std::vector<uint8_t> x(xv.size()), out(g.batch * g.oh * g.ow * C + 1, 0xCD);
  for (size_t i = 0; i < xv.size(); ++i) x[i] = static_cast<uint8_t>(xv[i]);
  DwParams p{};
  p.g = g; p.cout = C; p.mult = mult; p.x_signed = x_signed; p.x_zp = xzp;
  DwPacked packed;                         // as the binding's plan does
  packed.attach(p, w.data());
  if (narrow_w) CHECK(p.pv != nullptr && depthwise_vnni_fits(p));
  depthwise(p, x.data(), w.data(), b.rq, out.data(), threads);
  int bad = 0;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t oc = 0; oc < C; ++oc) {
          int64_t acc = qtest::tap_sum_ref(g, n, oy, ox, [&](int64_t pixel, int64_t tap) {
            return int64_t(xv[pixel * g.cin + oc / mult] - xzp) * w[tap * C + oc];
          });
          int32_t ref = qtest::requant_ref(acc, cp.bias[oc], cp.mult[oc], cp.shift[oc],
                                           oc >= split, yzp, lo, hi);
          bad += out[((n * g.oh + oy) * g.ow + ox) * C + oc] != static_cast<uint8_t>(ref);
        }
  CHECK(bad == 0);
  CHECK(out.back() == 0xCD);
}

}  // namespace

NEON_TEST(quant_depthwise_geometries) {
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{1, 7, 9, 37, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1};     // SAME 3x3, odd channels
  ConvGeom g2{2, 9, 8, 19, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1};     // stride 2
  ConvGeom g3{1, 8, 8, 3, 4, 4, 3, 2, 1, 1, 2, 2, 0, 1};      // dilation, mult 3 below
  ConvGeom g4{1, 6, 5, 96, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1};     // whole vectors (96 = 6 x 16)
  ConvGeom g5{1, 5, 5, 1, 3, 3, 3, 3, 1, 1, 1, 1, 0, 0};      // one channel
  ConvGeom g6{1, 4, 6, 70, 4, 3, 5, 5, 1, 2, 1, 1, 2, 2};     // 5x5, pad 2, 70 channels
  ConvGeom g7{1, 3, 4, 300, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1};    // 300 = 256 + 32 + 8 + 4
  for (bool s : {true, false})
    for (int threads : {1, 2}) {
      check_dw(s, g1, 1, threads, 31);
      check_dw(s, g2, 1, threads, 32);
      check_dw(s, g3, 3, threads, 33);
      check_dw(s, g4, 1, threads, 34);
      check_dw(s, g5, 1, threads, 35);
      check_dw(s, g6, 1, threads, 36);
      check_dw(s, g7, 1, threads, 38);
      check_dw(s, g2, 2, threads, 37);
      // the vector requantization (AVX-512: zero-point padding rows, fused epilogue)
      check_dw(s, g1, 1, threads, 41, true);
      check_dw(s, g2, 1, threads, 42, true);
      check_dw(s, g4, 1, threads, 44, true);
      check_dw(s, g5, 1, threads, 45, true);
      check_dw(s, g6, 1, threads, 46, true);
      check_dw(s, g7, 1, threads, 48, true);
      check_dw(s, g3, 3, threads, 43, true);
    }
}

// The VNNI path (4-row tap groups): rows of several 16-pixel chunks and a remainder, 64- and
// 32-channel blocks (zmm, ymm) full and partial, strides 1 and 2 on odd and even sizes, both
// paddings, 5x5 at stride 1, uint8 inputs with int8-range weights; batch 2, threads 1 and 2.
NEON_TEST(quant_depthwise_vnni) {
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{1, 6, 37, 32, 6, 37, 3, 3, 1, 1, 1, 1, 1, 1};    // SAME, one ymm block
  ConvGeom g2{2, 9, 35, 96, 5, 18, 3, 3, 2, 2, 1, 1, 1, 1};    // SAME stride 2, 64 + 32
  ConvGeom g3{1, 8, 36, 144, 3, 17, 3, 3, 2, 2, 1, 1, 0, 0};   // VALID stride 2, 64 + 64 + 16
  ConvGeom g4{1, 7, 40, 16, 7, 40, 5, 5, 1, 1, 1, 1, 2, 2};    // 5x5 SAME
  ConvGeom g5{1, 14, 14, 40, 7, 7, 3, 3, 2, 2, 1, 1, 0, 0};    // SAME stride 2, even size
  ConvGeom g6{1, 9, 20, 100, 7, 18, 3, 3, 1, 1, 1, 1, 0, 0};   // VALID, 64 + 36
  for (bool s : {true, false})
    for (int threads : {1, 2}) {
      check_dw(s, g1, 1, threads, 61, true, true);
      check_dw(s, g2, 1, threads, 62, true, true);
      check_dw(s, g3, 1, threads, 63, true, true);
      check_dw(s, g4, 1, threads, 64, true, true);
      check_dw(s, g5, 1, threads, 65, true, true);
      check_dw(s, g6, 1, threads, 66, true, true);
      // the zero point folded (odd seeds): a 64-channel block's codes packed a pixel at a
      // time (pack_codes4), also a partial block (64 + 32, 64 + 36)
      check_dw(s, g2, 1, threads, 67, true, true);
      check_dw(s, g6, 1, threads, 69, true, true);
    }
}

// few output rows that do not split evenly over the threads: the AVX-512 vector paths split
// whole channel blocks (32 or 64) instead (uneven block counts, a partial last block)
NEON_TEST(quant_depthwise_channel_split) {
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{1, 7, 7, 200, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1};    // 7x7 map, 7 blocks
  ConvGeom g2{1, 14, 13, 65, 7, 7, 3, 3, 2, 2, 1, 1, 0, 1};   // stride 2 to 7 rows, 3 blocks
  ConvGeom g3{1, 5, 3, 64, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1};     // as many blocks as threads
  for (bool s : {true, false})
    for (int threads : {2, 3}) {
      check_dw(s, g1, 1, threads, 51, true);
      check_dw(s, g2, 1, threads, 52, true);
      check_dw(s, g3, 1, threads, 53, true);
      check_dw(s, g1, 1, threads, 54);
    }
}

namespace {

void check_pool(bool x_signed, bool average, ConvGeom g, int threads, uint64_t seed) {
  Rng rng(seed);
  const int64_t C = g.cin;
  std::vector<int32_t> xv(g.batch * g.ih * g.iw * C);
  for (auto& v : xv) v = static_cast<int32_t>(x_signed ? rng.uniform(-128, 127) : rng.uniform(0, 255));
  const int32_t lo = x_signed ? -100 : 7, hi = x_signed ? 120 : 240;
  PoolParams p{};
  p.g = g; p.x_signed = x_signed; p.average = average; p.lo = lo; p.hi = hi;
  std::vector<uint8_t> x(xv.size()), out(g.batch * g.oh * g.ow * C);
  for (size_t i = 0; i < xv.size(); ++i) x[i] = static_cast<uint8_t>(xv[i]);
  pool(p, x.data(), out.data(), threads);
  int bad = 0;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t c = 0; c < C; ++c) {
          int64_t sum = 0, count = 0, mx = -1000;
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t iy = oy * g.sh - g.pad_top + ky, ix = ox * g.sw - g.pad_left + kx;
              if (iy < 0 || iy >= g.ih || ix < 0 || ix >= g.iw) continue;
              int64_t v = xv[((n * g.ih + iy) * g.iw + ix) * C + c];
              sum += v;
              ++count;
              mx = v > mx ? v : mx;
            }
          int64_t ref = mx;
          if (average) {      // TFLite: (sum +- count / 2) / count, halves away from zero
            ref = sum >= 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
          }
          ref = ref < lo ? lo : (ref > hi ? hi : ref);
          bad += out[((n * g.oh + oy) * g.ow + ox) * C + c] != static_cast<uint8_t>(ref);
        }
  CHECK(bad == 0);
}

}  // namespace

NEON_TEST(quant_pool_average_and_max) {
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{1, 7, 7, 37, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1};     // SAME, partial windows
  ConvGeom g2{2, 5, 6, 3, 2, 3, 2, 2, 2, 2, 1, 1, 0, 0};      // VALID 2x2
  ConvGeom g3{1, 7, 7, 67, 1, 1, 7, 7, 1, 1, 1, 1, 0, 0};     // global pooling (49 taps)
  for (bool s : {true, false})
    for (bool avg : {true, false})
      for (int threads : {1, 2}) {
        check_pool(s, avg, g1, threads, 41);
        check_pool(s, avg, g2, threads, 42);
        check_pool(s, avg, g3, threads, 43);
      }
}

NEON_TEST(quant_pair_lookup_broadcast) {
  Rng rng(51);
  std::vector<uint8_t> table(2 * 65536);
  for (auto& v : table) v = static_cast<uint8_t>(rng.uniform(0, 255));
  const int64_t shape[4] = {2, 3, 5, 19};
  const int64_t total = 2 * 3 * 5 * 19;
  // a: full tensor; b: broadcast over dims 1 and 3 (shape [2, 1, 5, 1])
  const int64_t astr[4] = {3 * 5 * 19, 5 * 19, 19, 1}, bstr[4] = {5, 0, 1, 0};
  std::vector<uint8_t> a(total), b(10), kinds(total), out(total);
  for (auto& v : a) v = static_cast<uint8_t>(rng.uniform(0, 255));
  for (auto& v : b) v = static_cast<uint8_t>(rng.uniform(0, 255));
  for (auto& v : kinds) v = static_cast<uint8_t>(rng.uniform(0, 1));
  for (int threads : {1, 2})
    for (bool with_kinds : {false, true}) {
      pair_lookup(table.data(), a.data(), b.data(), with_kinds ? kinds.data() : nullptr, shape,
                  astr, bstr, out.data(), threads);
      int bad = 0;
      for (int64_t i0 = 0; i0 < 2; ++i0)
        for (int64_t i1 = 0; i1 < 3; ++i1)
          for (int64_t i2 = 0; i2 < 5; ++i2)
            for (int64_t i3 = 0; i3 < 19; ++i3) {
              int64_t i = ((i0 * 3 + i1) * 5 + i2) * 19 + i3;
              int64_t idx = int64_t(a[i]) * 256 + b[i0 * 5 + i2] + (with_kinds ? kinds[i] * 65536 : 0);
              bad += out[i] != table[idx];
            }
      CHECK(bad == 0);
    }
}

NEON_TEST(quant_lut8_sizes) {
  Rng rng(61);
  std::vector<uint8_t> table(256);
  for (auto& v : table) v = static_cast<uint8_t>(rng.uniform(0, 255));
  for (int64_t n : {0, 1, 31, 257, (1 << 17) + 5})
    for (int threads : {1, 2}) {
      std::vector<uint8_t> x(n), out(n + 1, 0x5A);
      for (auto& v : x) v = static_cast<uint8_t>(rng.uniform(0, 255));
      lut8(table.data(), x.data(), n, out.data(), threads);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += out[i] != table[x[i]];
      CHECK(bad == 0);
      CHECK(out[n] == 0x5A);
    }
}
