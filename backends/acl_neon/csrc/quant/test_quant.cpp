// C++ tests of the quantized GEMM, requantization and convolution against scalar references.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "qgemm.h"
#include "qtest_ref.h"
#include "testing.h"

using namespace onert_neon::quant;
using qtest::Rng;

NEON_TEST(quant_gemm_u8s8_odd_sizes) {
  Rng rng(1);
  for (int64_t n : {1, 15, 16, 17, 40, 67})
    for (int64_t k : {1, 3, 5, 8, 37, 130})
      for (int64_t rows : {1, 2, 5, 6, 7, 13}) {
        const int64_t kp = (k + 3) / 4 * 4, nb = (n + kNB - 1) / kNB, ldc = nb * kNB;
        std::vector<int8_t> w(n * k), packed(packed_size(n, kp));
        for (auto& v : w) v = static_cast<int8_t>(rng.uniform(-128, 127));
        pack_weights(w.data(), n, k, kp, packed.data());
        std::vector<uint8_t> a(rows * kp, 0);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t q = 0; q < k; ++q) a[r * kp + q] = static_cast<uint8_t>(rng.uniform(0, 255));
        std::vector<int32_t> c(rows * ldc, -7);
        gemm_u8s8(a.data(), rows, kp, packed.data(), nb, c.data(), ldc);
        int bad = 0;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < ldc; ++j) {
            int32_t ref = 0;
            for (int64_t q = 0; j < n && q < k; ++q) ref += int32_t(a[r * kp + q]) * w[j * k + q];
            bad += c[r * ldc + j] != ref;
          }
        CHECK(bad == 0);
      }
}

NEON_TEST(quant_gemm_u8s8_extremes) {
  // all 255 x -128: the largest magnitude products, summed exactly
  const int64_t n = 33, k = 1021, kp = 1024, nb = 3, ldc = nb * kNB, rows = 7;
  std::vector<int8_t> w(n * k, -128), packed(packed_size(n, kp));
  pack_weights(w.data(), n, k, kp, packed.data());
  std::vector<uint8_t> a(rows * kp, 255);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = k; q < kp; ++q) a[r * kp + q] = 0;
  std::vector<int32_t> c(rows * ldc);
  gemm_u8s8(a.data(), rows, kp, packed.data(), nb, c.data(), ldc);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < ldc; ++j) CHECK(c[r * ldc + j] == (j < n ? -255 * 128 * k : 0));
}

namespace {

void check_requant(int64_t n, int64_t split, bool fold, int32_t zp, int32_t lo, int32_t hi,
                   uint64_t seed, bool vec = false) {
  Rng rng(seed);
  qtest::ChannelParams cp(n, rng, 3000, vec);
  qtest::RequantBuild b(cp.mult, cp.shift, cp.bias, split, zp, fold, lo, hi);
  if (vec) CHECK(b.use_vec());
  std::vector<int32_t> acc(n), ccoef(n);
  std::vector<uint8_t> out(n + 1, 0xAB);
  int bad = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    // small accumulators around zero (ties of the 2^30 multipliers) and wide ones
    int64_t range = iter % 2 ? 300 : 200000;
    int64_t row_add = rng.uniform(-50, 50);
    for (int64_t c = 0; c < n; ++c) {
      acc[c] = static_cast<int32_t>(rng.uniform(-range, range));
      ccoef[c] = static_cast<int32_t>(rng.uniform(-100, 100));
    }
    requant_row(acc.data(), ccoef.data(), row_add, n, b.rq, out.data());
    for (int64_t c = 0; c < n; ++c) {
      int32_t ref = qtest::requant_ref(int64_t(acc[c]) + ccoef[c] + row_add, cp.bias[c],
                                       cp.mult[c], cp.shift[c], c >= split, zp, lo, hi);
      bad += out[c] != static_cast<uint8_t>(ref);
    }
  }
  CHECK(bad == 0);
  CHECK(out[n] == 0xAB);                        // nothing written past n
}

}  // namespace

NEON_TEST(quant_requant_vector_and_tail_rounding) {
  // int8 range (codes stored as bytes) and uint8 range; split: vector / reference channels
  check_requant(37, 37, true, -3, -128, 127, 2);
  check_requant(37, 19, true, 5, -128, 127, 3);
  check_requant(37, 0, false, 7, -128, 127, 4);
  check_requant(8, 3, false, 128, 0, 255, 5);
  check_requant(1, 0, true, 0, -20, 30, 6);
  check_requant(70, 64, true, 100, 0, 255, 7);
}

NEON_TEST(quant_requant_vector_form) {
  // RequantVec (32-bit lanes, shifts >= 32): tails of 1..15 channels, both roundings
  for (bool fold : {true, false}) {
    check_requant(37, 37, fold, -3, -128, 127, 12, true);
    check_requant(37, 19, fold, 5, -128, 127, 13, true);
    check_requant(8, 3, fold, 128, 0, 255, 15, true);
    check_requant(1, 0, fold, 0, -20, 30, 16, true);
    check_requant(70, 64, fold, 100, 0, 255, 17, true);
    check_requant(16, 0, fold, -128, -128, 127, 18, true);
  }
  // a left shift (s = 31) or fc constants have no vector form
  std::vector<int32_t> mult(3, 1 << 30), bias(3, 0);
  qtest::RequantBuild b(mult, {-1, 1, -2}, bias, 3, 0, true, -128, 127);
  CHECK(!b.use_vec());
}

NEON_TEST(quant_requant_exact_ties) {
  // multiplier 2^30 (x 0.5), shift -1: acc / 4 for every acc, halves both ways
  const int64_t n = 2;
  std::vector<int32_t> mult(n, 1 << 30), bias(n, 0);
  std::vector<int> shift(n, -1);
  qtest::RequantBuild b(mult, shift, bias, 1, 0, true, -128, 127);
  for (int32_t a = -40; a <= 40; ++a) {
    std::vector<int32_t> acc(n, a), cc(n, 0);
    uint8_t out[2];
    requant_row(acc.data(), cc.data(), 0, n, b.rq, out);
    // channel 0: the vector rounding (nested halves up), channel 1: halves away from zero
    auto fdiv = [](int32_t x, int32_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
    int32_t h = fdiv(a + 1, 2);                                    // srdhm(a, 2^30): a/2 half up
    int32_t up = fdiv(h + 1, 2);
    int32_t away = h >= 0 ? (h + 1) / 2 : -((-h + 1) / 2);
    CHECK(static_cast<int8_t>(out[0]) == up);
    CHECK(static_cast<int8_t>(out[1]) == away);
    CHECK(qtest::requant_ref(a, 0, 1 << 30, -1, false, 0, -128, 127) == up);
  }
}

NEON_TEST(quant_requant_fully_connected_mode) {
  Rng rng(11);
  const int64_t n = 29;
  std::vector<int64_t> m(n);
  std::vector<int32_t> s(n), left(n), bias(n), acc(n), cc(n, 0);
  for (int64_t c = 0; c < n; ++c) {
    m[c] = c % 4 == 0 ? (1 << 30) : rng.uniform(1 << 30, INT32_MAX);
    left[c] = c % 5 == 4 ? 1 + static_cast<int32_t>(c % 3) : 0;
    s[c] = left[c] ? 0 : c % 7 == 3 ? 31 : static_cast<int32_t>(rng.uniform(0, 8));
    bias[c] = static_cast<int32_t>(rng.uniform(-5000, 5000));
  }
  Requant rq{};
  rq.fc = true;
  rq.m = m.data(); rq.s = s.data(); rq.left = left.data(); rq.bias = bias.data();
  rq.zp_add = -5; rq.lo = -128; rq.hi = 127;
  RequantVecStore vstore;
  vstore.attach(rq, n);
  CHECK(rq.fc_m32 != nullptr);
  const int32_t* m32 = rq.fc_m32;
  std::vector<uint8_t> out(n);
  int bad = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    rq.fc_m32 = iter % 2 ? m32 : nullptr;     // the vector form (AVX-512) and the scalar
    const int64_t range = iter % 4 < 2 ? 100000 : INT32_MAX;   // sums that wrap when shifted
    for (auto& v : acc) v = static_cast<int32_t>(rng.uniform(-range, range));
    requant_row(acc.data(), cc.data(), 0, n, rq, out.data());
    for (int64_t c = 0; c < n; ++c) {
      int shift = left[c] ? left[c] : -s[c];
      bad += out[c] != static_cast<uint8_t>(qtest::requant_ref(
                           acc[c], bias[c], static_cast<int32_t>(m[c]), shift, false, -5, -128, 127));
    }
  }
  CHECK(bad == 0);
}

namespace {

// whole convolution: int8 (w_zp 0) or uint8 (w_zp != 0) against sum (x - x_zp)(w - w_zp)
void check_conv(bool x_signed, ConvGeom g, int64_t cout, int threads, uint64_t seed,
                bool vec = false, int32_t act_lo = INT32_MIN, int32_t act_hi = INT32_MAX) {
  Rng rng(seed);
  const int32_t xzp = x_signed ? -7 : 131, wzp = x_signed ? 0 : 120;
  const int64_t k = g.kh * g.kw * g.cin, kp = (k + 3) / 4 * 4;
  std::vector<int32_t> wv(cout * k), xv(g.batch * g.ih * g.iw * g.cin);
  for (auto& v : wv) v = static_cast<int32_t>(x_signed ? rng.uniform(-127, 127) : rng.uniform(0, 255));
  for (auto& v : xv) v = static_cast<int32_t>(x_signed ? rng.uniform(-128, 127) : rng.uniform(0, 255));
  // the operands of the u8 x s8 product (acl_neon/ops/quant.py gemm_operands)
  std::vector<int8_t> wq(cout * k), packed(packed_size(cout, kp));
  std::vector<int32_t> ccoef(cout);
  for (int64_t j = 0; j < cout; ++j) {
    int64_t sw = 0, swz = 0;
    for (int64_t q = 0; q < k; ++q) {
      int32_t w = wv[j * k + q];
      wq[j * k + q] = static_cast<int8_t>(x_signed ? w : w - 128);
      sw += w;
      swz += w - wzp;
    }
    ccoef[j] = static_cast<int32_t>(x_signed ? -(128 + xzp) * sw : -xzp * swz);
  }
  pack_weights(wq.data(), cout, k, kp, packed.data());
  ConvParams p{};
  p.g = g; p.cout = cout; p.k = k; p.kp = kp; p.x_signed = x_signed;
  p.pad_code = static_cast<uint8_t>(x_signed ? (xzp + 128) & 0xFF : xzp);
  p.rcoef = x_signed ? 0 : 128 - wzp;
  qtest::ChannelParams cp(cout, rng, 2000, vec);
  const int64_t split = cout / 2;
  const int32_t yzp = x_signed ? 3 : 140;
  const int32_t lo = std::max(x_signed ? -128 : 0, act_lo);
  const int32_t hi = std::min(x_signed ? 127 : 255, act_hi);
  qtest::RequantBuild b(cp.mult, cp.shift, cp.bias, split, yzp, seed % 2 == 0, lo, hi);
  if (vec) CHECK(b.use_vec());
  std::vector<uint8_t> x(xv.size()), out(g.batch * g.oh * g.ow * cout);
  for (size_t i = 0; i < xv.size(); ++i) x[i] = static_cast<uint8_t>(xv[i]);
  conv_u8s8(p, x.data(), packed.data(), ccoef.data(), b.rq, out.data(), threads);
  int bad = 0;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t j = 0; j < cout; ++j) {
          int64_t acc = qtest::tap_sum_ref(g, n, oy, ox, [&](int64_t pixel, int64_t tap) {
            int64_t s = 0;
            for (int64_t c = 0; c < g.cin; ++c)
              s += int64_t(xv[pixel * g.cin + c] - xzp) * (wv[j * k + tap * g.cin + c] - wzp);
            return s;
          });
          int32_t ref = qtest::requant_ref(acc, cp.bias[j], cp.mult[j], cp.shift[j], j >= split,
                                           yzp, lo, hi);
          bad += out[((n * g.oh + oy) * g.ow + ox) * cout + j] != static_cast<uint8_t>(ref);
        }
  CHECK(bad == 0);
}

}  // namespace

NEON_TEST(quant_conv_int8_uint8_geometries) {
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{2, 5, 7, 3, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1};      // SAME 3x3, k = 27 (not % 4)
  ConvGeom g2{1, 9, 8, 5, 5, 4, 3, 2, 2, 2, 1, 1, 1, 0};      // stride 2, odd filter
  ConvGeom g3{1, 6, 5, 19, 6, 5, 1, 1, 1, 1, 1, 1, 0, 0};     // pointwise (direct rows)
  ConvGeom g4{1, 9, 9, 4, 5, 5, 3, 3, 1, 1, 2, 2, 0, 0};      // dilation 2, VALID
  ConvGeom g5{3, 11, 13, 8, 11, 13, 1, 1, 1, 1, 1, 1, 0, 0};  // many tiles (429 rows)
  for (bool s : {true, false})
    for (int threads : {1, 2}) {
      check_conv(s, g1, 17, threads, 21);
      check_conv(s, g2, 33, threads, 22);
      check_conv(s, g3, 7, threads, 23);
      check_conv(s, g4, 1, threads, 24);
      check_conv(s, g5, 40, threads, 25);
    }
}

NEON_TEST(quant_conv_vector_requant) {
  // the RequantVec paths: fused GEMM epilogue, int8 pointwise rows read directly (cin % 4 == 0)
  ConvGeom g1{2, 5, 7, 3, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1};
  ConvGeom g2{1, 9, 8, 5, 5, 4, 3, 2, 2, 2, 1, 1, 1, 0};
  ConvGeom g3{1, 6, 5, 19, 6, 5, 1, 1, 1, 1, 1, 1, 0, 0};
  ConvGeom g5{3, 11, 13, 8, 11, 13, 1, 1, 1, 1, 1, 1, 0, 0};
  ConvGeom g6{1, 7, 9, 20, 7, 9, 1, 1, 1, 1, 1, 1, 0, 0};
  for (bool s : {true, false})
    for (int threads : {1, 2}) {
      check_conv(s, g1, 17, threads, 31, true);
      check_conv(s, g2, 33, threads, 32, true);
      check_conv(s, g3, 7, threads, 33, true);
      check_conv(s, g5, 40, threads, 34, true);
      check_conv(s, g6, 49, threads, 35, true);
      // a last block of at most 8 channels (computed 8 wide): alone, and second of a pair
      check_conv(s, g5, 8, threads, 36, true);
      check_conv(s, g6, 24, threads, 37, true);
      check_conv(s, g3, 56, threads, 38, true);
    }
}

NEON_TEST(quant_conv_packed_codes_and_clamps) {
  // the fused requantization's codes packed two rows x two blocks at a time (zero point folded:
  // even seeds), saturated then clamped as bytes: activation ranges inside the 8-bit one
  // (RELU6-like, a clamp at both ends), every row remainder of the 6-row tiles (429 rows and
  // 1 to 5 rows), pairs with a last block of 8 channels (24, 40) and a lone block (16)
  ConvGeom many{3, 11, 13, 8, 11, 13, 1, 1, 1, 1, 1, 1, 0, 0};
  for (bool s : {true, false})
    for (int64_t cout : {16, 24, 40, 64}) {
      const int32_t zp = s ? 3 : 140;
      check_conv(s, many, cout, 1, 70, true, zp, zp + 50);
      check_conv(s, many, cout, 2, 72, true, s ? -100 : 20, s ? 90 : 230);
      check_conv(s, many, cout, 1, 71, true, zp, zp + 50);           // not folded: int32 lanes
      for (int64_t rows = 1; rows <= 5; ++rows)
        check_conv(s, ConvGeom{1, 1, rows, 20, 1, rows, 1, 1, 1, 1, 1, 1, 0, 0}, cout, 1,
                   74 + 2 * rows, true, zp - 20, zp + 20);
    }
}

NEON_TEST(quant_conv_channel_split_and_row_ranges) {
  // under two 6-row groups and >= 2 blocks per thread (1 row; 30 rows at 3 threads): the
  // threads split the channel blocks (scalar / vector requantization on channel ranges from a
  // block boundary, a partial last block); more rows: balanced ranges of whole 6-row groups
  ConvGeom g1{1, 7, 7, 24, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0};      // 49 rows
  ConvGeom g2{1, 1, 1, 40, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};      // 1 row (fully connected form)
  ConvGeom g3{1, 5, 6, 3, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1};       // 3x3 with im2col, 30 rows
  ConvGeom g4{1, 20, 21, 8, 20, 21, 1, 1, 1, 1, 1, 1, 0, 0};   // 420 rows
  for (bool s : {true, false})
    for (bool vec : {false, true})
      for (int threads : {2, 3}) {
        check_conv(s, g1, 83, threads, 41, vec);
        check_conv(s, g2, 100, threads, 42, vec);
        check_conv(s, g3, 130, threads, 43, vec);
        check_conv(s, g4, 21, threads, 44, vec);
      }
}

NEON_TEST(quant_conv_small_window_rows) {
  // im2col rows of 8..16 bytes per window row (two overlapping words) and the output pixel
  // stepped across rows, images and tiles: the stem's stride 2 SAME form on odd sizes
  //        batch ih iw cin oh ow kh kw sh sw dh dw pt pl
  ConvGeom g1{2, 23, 17, 3, 12, 9, 3, 3, 2, 2, 1, 1, 1, 1};    // 3x3x3 stride 2 SAME, k = 27
  ConvGeom g2{1, 9, 10, 8, 8, 9, 2, 2, 1, 1, 1, 1, 0, 0};      // 16-byte window rows
  ConvGeom g3{1, 7, 9, 8, 4, 5, 1, 1, 2, 2, 1, 1, 0, 0};       // 8-byte rows, stride 2
  ConvGeom g4{1, 8, 8, 5, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1};       // 15-byte rows, SAME
  // VALID 3x3x3 stride 2 whose last windows end at x's last pixel: the runs of inside
  // windows stop where a 16-byte read would pass the end of x
  ConvGeom g5{2, 7, 9, 3, 3, 4, 3, 3, 2, 2, 1, 1, 0, 0};
  for (bool s : {true, false})
    for (bool vec : {false, true})
      for (int threads : {1, 2}) {
        check_conv(s, g1, 32, threads, 61, vec);
        check_conv(s, g2, 19, threads, 62, vec);
        check_conv(s, g3, 7, threads, 63, vec);
        check_conv(s, g4, 33, threads, 64, vec);
        check_conv(s, g5, 16, threads, 65, vec);
      }
}
