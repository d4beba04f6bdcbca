// The GEMM family against scalar references: odd sizes (row and column tails), every
// activation range, threads 1 and 2; the convolutions' swish and hard-swish epilogues
// (common/epilogue.h) and the gated 1x1 convolution (squeeze-and-excitation). The fused
// InvertedResidual block: test_inverted_residual.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "conv_direct.h"
#include "gemm.h"
#include "test_data.h"
#include "testing.h"

using namespace onert_neon;
using gemm_test::seq;

namespace {

float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// conv2d_f32 (the GEMM path) and, for every geometry, conv_direct_f32 (both widths at AVX-512)
// against one reference, with epilogue `e` (none by default) on every path
void check_conv(const ConvGeom& g, float lo, float hi, int threads, const Epilogue& e = {}) {
  const int64_t K = g.kh * g.kw * g.cin;
  auto x = seq(g.n * g.h * g.w * g.cin, 1), w = seq(g.cout * K, 2), bias = seq(g.cout, 3);
  std::vector<float> ref;
  for (int64_t bn = 0; bn < g.n; ++bn)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t o = 0; o < g.cout; ++o) {
          double acc = bias[o];
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t iy = oy * g.sh - g.pt + ky * g.dh, ix = ox * g.sw - g.pl + kx * g.dw;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              for (int64_t c = 0; c < g.cin; ++c)
                acc += double(x[((bn * g.h + iy) * g.w + ix) * g.cin + c]) *
                       w[((o * g.kh + ky) * g.kw + kx) * g.cin + c];
            }
          ref.push_back(float(epilogue_ref(e, clampf(float(acc), lo, hi))));
        }
  PackedB b;
  pack_b(w.data(), K, bias.data(), g.cout, K, b);
  DirectWeights d;
  pack_direct(g, w.data(), bias.data(), d);
  for (int path : {0, 1, 2}) {   // the GEMM, the direct convolution at both vector widths
    std::vector<float> y(ref.size() + 1, 99.0f);
    d.narrow = path == 2;
    const Epilogue* epi = e.kind == kEpilogueNone ? nullptr : &e;
    if (path) conv_direct_f32(g, x.data(), d, y.data(), lo, hi, threads, epi);
    else conv2d_f32(g, x.data(), b, y.data(), lo, hi, threads, epi);
    for (size_t i = 0; i < ref.size(); ++i) CHECK_NEAR(y[i], ref[i], 1e-4);
    CHECK(y[ref.size()] == 99.0f);   // nothing written past the output
  }
}


// ---- the fused InvertedResidual block against a scalar reference of its four stages ----

}  // namespace

NEON_TEST(gemm_odd_sizes_and_clamps) {
  const float inf = INFINITY;
  for (int threads : {1, 2})
    for (int64_t M : {1, 5, 13, 31})
      for (int64_t N : {1, 7, 8, 16, 17, 24, 33, 40, 56, 70})
        for (int64_t K : {1, 3, 19}) {
          float lo = N % 2 ? -inf : 0.0f, hi = N == 7 ? 0.5f : inf;
          auto a = seq(M * (K + 2), 4), w = seq(N * K, 5), bias = seq(N, 6);
          PackedB b;
          pack_b(w.data(), K, N == 16 ? nullptr : bias.data(), N, K, b);
          std::vector<float> c(static_cast<size_t>(M * (N + 1)), 99.0f);
          gemm_f32(a.data(), M, K + 2, b, c.data(), N + 1, lo, hi, threads);
          for (int64_t m = 0; m < M; ++m) {
            for (int64_t n = 0; n < N; ++n) {
              double acc = N == 16 ? 0.0 : bias[n];
              for (int64_t k = 0; k < K; ++k) acc += double(a[m * (K + 2) + k]) * w[n * K + k];
              CHECK_NEAR(c[m * (N + 1) + n], clampf(float(acc), lo, hi), 1e-4);
            }
            CHECK(c[m * (N + 1) + N] == 99.0f);   // the gap between rows is left alone
          }
        }
}

// Full register tiles (every row of the ISA's tile, 32 columns: the AVX-512 inline-assembly
// kernel) and tail tiles (fewer rows) give the same bits for the same row: A's 25 rows are one
// row repeated, so every output row must equal row 24 (the tail); lo and hi both bind, A and C
// rows are padded, and a NaN in A stays NaN, clamped or not (TFLite's activations keep NaN)
NEON_TEST(gemm_full_and_tail_tiles_agree) {
  const int64_t M = 25, N = 70, K = 37, lda = K + 3, ldc = N + 5;
  const auto row = seq(K, 10), w = seq(N * K, 11), bias = seq(N, 12);
  std::vector<float> a(static_cast<size_t>(M * lda), 7.0f);
  for (int64_t m = 0; m < M; ++m) std::copy(row.begin(), row.end(), a.begin() + m * lda);
  PackedB b;
  pack_b(w.data(), K, bias.data(), N, K, b);
  for (int threads : {1, 2})
    for (bool clamp : {true, false}) {
      const float lo = clamp ? -0.3f : -INFINITY, hi = clamp ? 0.7f : INFINITY;
      std::vector<float> c(static_cast<size_t>(M * ldc), 99.0f);
      gemm_f32(a.data(), M, lda, b, c.data(), ldc, lo, hi, threads);
      for (int64_t n = 0; n < N; ++n) {
        double acc = bias[n];
        for (int64_t k = 0; k < K; ++k) acc += double(row[k]) * w[n * K + k];
        CHECK_NEAR(c[(M - 1) * ldc + n], clampf(float(acc), lo, hi), 1e-4);
        for (int64_t m = 0; m < M - 1; ++m) CHECK(c[m * ldc + n] == c[(M - 1) * ldc + n]);
      }
      for (int64_t m = 0; m < M; ++m) CHECK(c[m * ldc + N] == 99.0f);
    }
  a[3 * lda + 5] = NAN;                        // row 3: in the first full tile
  a[(M - 1) * lda + 5] = NAN;                  // the tail tile's row
  for (float lo : {-INFINITY, 0.0f}) {
    std::vector<float> c(static_cast<size_t>(M * ldc), 99.0f);
    gemm_f32(a.data(), M, lda, b, c.data(), ldc, lo, lo == 0.0f ? 6.0f : INFINITY, 1);
    for (int64_t n = 0; n < N; ++n)
      CHECK(std::isnan(c[3 * ldc + n]) && std::isnan(c[(M - 1) * ldc + n]));
  }
}

// B larger than a column group (gemm_driver.h's kGroupBytes): K = 700 makes groups of 2
// 32-column blocks, N = 229 ends in a partial group with a column tail, M = 29 in a row tail;
// threads 1 to 3 split the groups
NEON_TEST(gemm_column_groups) {
  const int64_t M = 29, N = 229, K = 700;
  auto a = seq(M * K, 7), w = seq(N * K, 8), bias = seq(N, 9);
  PackedB b;
  pack_b(w.data(), K, bias.data(), N, K, b);
  std::vector<double> want(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = bias[n];
      for (int64_t k = 0; k < K; ++k) acc += double(a[m * K + k]) * w[n * K + k];
      want[m * N + n] = acc;
    }
  for (int threads : {1, 2, 3}) {
    std::vector<float> c(static_cast<size_t>(M * N), 99.0f);
    gemm_f32(a.data(), M, K, b, c.data(), N, -INFINITY, INFINITY, threads);
    for (int64_t i = 0; i < M * N; ++i) CHECK_NEAR(c[i], want[i], 1e-4);
  }
}

// One or two rows (FULLY_CONNECTED heads) over many columns: the AVX-512 kernel's wide form
// (128 columns at once) and the ordinary tiles for the rest; every row must equal the same row
// computed in a 3-row tile (A's rows are one row repeated), and the reference, with clamps
// binding, the bias absent or present, K short and long, and threads splitting the columns
NEON_TEST(gemm_few_rows_many_columns) {
  for (int64_t N : {128, 160, 229, 1000})
    for (int64_t K : {1, 19, 700})
      for (bool bias_on : {false, true}) {
        const auto row = seq(K, 13), w = seq(N * K, 14), bias = seq(N, 15);
        std::vector<float> a(static_cast<size_t>(3 * (K + 1)), 7.0f);
        for (int64_t m = 0; m < 3; ++m) std::copy(row.begin(), row.end(), a.begin() + m * (K + 1));
        PackedB b;
        pack_b(w.data(), K, bias_on ? bias.data() : nullptr, N, K, b);
        const float lo = K == 19 ? -0.2f : -INFINITY, hi = K == 19 ? 0.4f : INFINITY;
        std::vector<float> three(static_cast<size_t>(3 * N));
        gemm_f32(a.data(), 3, K + 1, b, three.data(), N, lo, hi, 1);
        for (int threads : {1, 2, 3})
          for (int64_t M : {1, 2}) {
            std::vector<float> c(static_cast<size_t>(M * (N + 1)), 99.0f);
            gemm_f32(a.data(), M, K + 1, b, c.data(), N + 1, lo, hi, threads);
            for (int64_t n = 0; n < N; ++n) {
              double acc = bias_on ? bias[n] : 0.0;
              for (int64_t k = 0; k < K; ++k) acc += double(row[k]) * w[n * K + k];
              for (int64_t m = 0; m < M; ++m) {
                CHECK_NEAR(c[m * (N + 1) + n], clampf(float(acc), lo, hi), 1e-3);
                CHECK(c[m * (N + 1) + n] == three[n]);
              }
            }
            for (int64_t m = 0; m < M; ++m) CHECK(c[m * (N + 1) + N] == 99.0f);
          }
      }
}

NEON_TEST(conv_forms) {
  for (int threads : {1, 2}) {
    check_conv({1, 6, 7, 5, 1, 1, 1, 1, 1, 1, 0, 0, 6, 7, 19}, -INFINITY, INFINITY, threads);
    check_conv({2, 7, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 7, 8, 4}, 0.0f, 6.0f, threads);
    check_conv({1, 9, 8, 3, 3, 3, 2, 2, 1, 1, 0, 0, 4, 3, 33}, -1.0f, 1.0f, threads);
    check_conv({1, 9, 9, 2, 3, 2, 1, 2, 2, 1, 2, 0, 9, 4, 5}, 0.0f, INFINITY, threads);
    check_conv({1, 6, 6, 8, 1, 1, 2, 2, 1, 1, 0, 0, 3, 3, 4}, -INFINITY, INFINITY, threads);
  }
}

// the direct path's forms (few input channels): rows wider than a pixel block (interior blocks,
// the last one shifted), left/right/top/bottom padding, 1..4 channels in, channel tails and
// several column blocks out, dilations, strides, 5x5 / 7x7 / 1x1 filters, batch 2, a window
// wider than the input (no interior column)
NEON_TEST(conv_direct_forms) {
  const float inf = INFINITY;
  for (int threads : {1, 2}) {
    // n  h   w  cin kh kw sh sw dh dw pt pl  oh  ow cout
    check_conv({1, 23, 29, 3, 3, 3, 2, 2, 1, 1, 0, 0, 11, 14, 32}, 0.0f, 6.0f, threads);
    check_conv({1, 24, 30, 3, 3, 3, 2, 2, 1, 1, 0, 0, 12, 15, 32}, 0.0f, 6.0f, threads);
    check_conv({1, 24, 30, 3, 3, 3, 2, 2, 1, 1, 1, 1, 12, 15, 24}, -inf, inf, threads);
    check_conv({2, 17, 31, 1, 3, 3, 1, 1, 1, 1, 1, 1, 17, 31, 16}, -1.0f, 1.0f, threads);
    check_conv({1, 16, 40, 2, 5, 5, 2, 2, 1, 1, 1, 2, 8, 20, 40}, -inf, inf, threads);
    check_conv({1, 20, 33, 4, 7, 7, 2, 2, 1, 1, 3, 3, 10, 17, 8}, 0.0f, inf, threads);
    check_conv({1, 19, 26, 3, 3, 3, 1, 1, 2, 3, 2, 3, 19, 26, 5}, -inf, inf, threads);
    check_conv({1, 12, 37, 3, 3, 2, 1, 2, 2, 1, 0, 0, 8, 18, 1}, -inf, inf, threads);
    check_conv({2, 5, 27, 4, 1, 1, 1, 1, 1, 1, 0, 0, 5, 27, 35}, -inf, inf, threads);
    check_conv({1, 4, 3, 3, 5, 5, 1, 1, 1, 1, 2, 2, 4, 3, 7}, -inf, inf, threads);
    check_conv({1, 3, 3, 2, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 64}, 0.0f, 6.0f, threads);
  }
}

// the epilogue on every element exactly once: tiles with row and column tails, 1x1 (GEMM in
// place) and im2col convolutions, thread shares that start inside a row tile
NEON_TEST(conv_epilogues) {
  const float inf = INFINITY;
  for (int threads : {1, 2})
    for (Epilogue e : {Epilogue{kEpilogueSwish, -inf, inf}, Epilogue{kEpilogueSwish, 0.0f, 0.2f},
                       Epilogue{kEpilogueHardSwish, -inf, inf}}) {
      check_conv({1, 6, 7, 5, 1, 1, 1, 1, 1, 1, 0, 0, 6, 7, 19}, -inf, inf, threads, e);
      check_conv({2, 7, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 7, 8, 4}, 0.0f, 6.0f, threads, e);
      check_conv({1, 9, 8, 3, 3, 3, 2, 2, 1, 1, 0, 0, 4, 3, 33}, -1.0f, 1.0f, threads, e);
      check_conv({1, 25, 25, 64, 1, 1, 1, 1, 1, 1, 0, 0, 25, 25, 40}, -inf, inf, threads, e);
    }
}

// the gate on every input row (per image or shared, a clamp), tiles straddling two images,
// thread shares starting inside a row tile; with an epilogue too
NEON_TEST(gated_gemm_reads_the_gated_input) {
  const float inf = INFINITY;
  struct Case { int64_t images, pixels, K, N; bool per_image; float glo, ghi; };
  const Case cases[] = {{2, 7, 5, 19, true, -inf, inf}, {1, 30, 3, 33, false, 0.0f, 0.5f},
                        {3, 209, 64, 40, true, -inf, inf}, {2, 313, 64, 40, false, -inf, inf}};
  for (const Case& t : cases)
    for (int threads : {1, 2})
      for (int kind : {kEpilogueNone, kEpilogueSwish}) {
        const int64_t M = t.images * t.pixels;
        auto x = seq(M * t.K, 7), w = seq(t.N * t.K, 8), bias = seq(t.N, 9);
        auto gate = seq((t.per_image ? t.images : 1) * t.K, 10);
        PackedB b;
        pack_b(w.data(), t.K, bias.data(), t.N, t.K, b);
        std::vector<float> c(static_cast<size_t>(M * t.N), 99.0f);
        const Epilogue e{kind, -inf, inf};
        gated_gemm_f32(x.data(), M, {gate.data(), t.pixels, t.per_image, t.glo, t.ghi}, b,
                       c.data(), -1.0f, inf, threads, kind == kEpilogueNone ? nullptr : &e);
        for (int64_t m = 0; m < M; ++m) {
          const float* g = gate.data() + (t.per_image ? m / t.pixels * t.K : 0);
          for (int64_t n = 0; n < t.N; ++n) {
            double acc = bias[n];
            for (int64_t k = 0; k < t.K; ++k)
              acc += double(clampf(x[m * t.K + k] * g[k], t.glo, t.ghi)) * w[n * t.K + k];
            CHECK_NEAR(c[m * t.N + n], epilogue_ref(e, clampf(float(acc), -1.0f, inf)), 1e-4);
          }
        }
      }
}

NEON_TEST(transpose_conv_matches_scatter) {
  for (int threads : {1, 2}) {
    ConvGeom g{2, 3, 4, 5, 3, 2, 2, 1, 1, 1, 1, 0, 6, 5, 7};   // crop top 1, left 0
    const int64_t taps = g.kh * g.kw, N = taps * g.cout;
    auto x = seq(g.n * g.h * g.w * g.cin, 7), w = seq(g.cout * taps * g.cin, 8),
         bias = seq(g.cout, 9);
    std::vector<float> rows(static_cast<size_t>(N * g.cin));
    for (int64_t o = 0; o < g.cout; ++o)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t c = 0; c < g.cin; ++c)
          rows[(t * g.cout + o) * g.cin + c] = w[(o * taps + t) * g.cin + c];
    PackedB b;
    pack_b(rows.data(), g.cin, nullptr, N, g.cin, b);
    std::vector<float> cols(static_cast<size_t>(g.n * g.h * g.w * N));
    std::vector<float> y(static_cast<size_t>(g.n * g.oh * g.ow * g.cout));
    transpose_conv_f32(g, x.data(), b, bias.data(), cols.data(), y.data(), 0.0f, INFINITY,
                       threads);
    std::vector<double> ref(y.size());
    for (int64_t bn = 0; bn < g.n; ++bn)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          for (int64_t o = 0; o < g.cout; ++o)
            ref[((bn * g.oh + oy) * g.ow + ox) * g.cout + o] = bias[o];
    for (int64_t bn = 0; bn < g.n; ++bn)
      for (int64_t iy = 0; iy < g.h; ++iy)
        for (int64_t ix = 0; ix < g.w; ++ix)
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t oy = iy * g.sh + ky - g.pt, ox = ix * g.sw + kx - g.pl;
              if (oy < 0 || oy >= g.oh || ox < 0 || ox >= g.ow) continue;
              for (int64_t o = 0; o < g.cout; ++o)
                for (int64_t c = 0; c < g.cin; ++c)
                  ref[((bn * g.oh + oy) * g.ow + ox) * g.cout + o] +=
                      double(x[((bn * g.h + iy) * g.w + ix) * g.cin + c]) *
                      w[((o * g.kh + ky) * g.kw + kx) * g.cin + c];
            }
    for (size_t i = 0; i < y.size(); ++i) CHECK_NEAR(y[i], clampf(float(ref[i]), 0.0f, INFINITY), 1e-4);
  }
}

NEON_TEST(batch_matmul_adjoints_and_broadcast) {
  const int64_t M = 7, K = 13, N = 19;
  auto a = seq(2 * M * K, 4), b = seq(3 * K * N, 5);
  const std::vector<int64_t> ai = {0, 1, 1, 0}, bi = {2, 2, 0, 1};   // B re-packed on change
  for (int adj = 0; adj < 4; ++adj) {
    const bool ax = adj & 1, ay = adj & 2;
    for (int threads = 1; threads <= 2; ++threads) {
      std::vector<float> out(ai.size() * M * N), scratch;
      PackedB packed;
      BmmArgs g{M, K, N, static_cast<int64_t>(ai.size()), ax, ay, a.data(), b.data(),
                ai.data(), bi.data(), out.data()};
      batch_matmul_f32(g, scratch, packed, threads);
      for (size_t i = 0; i < ai.size(); ++i)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double ref = 0;
            for (int64_t k = 0; k < K; ++k) {
              const float av = a[ai[i] * M * K + (ax ? k * M + m : m * K + k)];
              const float bv = b[bi[i] * K * N + (ay ? n * K + k : k * N + n)];
              ref += static_cast<double>(av) * bv;
            }
            CHECK_NEAR(out[(i * M + m) * N + n], ref, 1e-4);
          }
    }
  }
}
