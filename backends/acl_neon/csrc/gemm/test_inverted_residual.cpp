// The fused InvertedResidual block (inverted_residual.h) against a stage-by-stage reference:
// with and without expand and residual, strides 1 and 2, 3x3 and 5x5, widths below and above a
// step, batch 2, threads 1 to 3 (bands that start inside an image), with the caller's scratch
// and with each thread's own; swish epilogues after the expand and the depthwise, with and
// without project (the block then ends with the depthwise).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gemm.h"
#include "inverted_residual.h"
#include "test_data.h"
#include "testing.h"

using namespace onert_neon;
using gemm_test::seq;

namespace {

double clampd(double v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

struct Case {
  int n, h, w, cin, cexp, cout, k, s;
  bool expand, residual;
  bool swish = false, lone = false;   // swish epilogues; no project (cout = cexp)
};

double swish(double v) { return v / (1.0 + std::exp(-v)); }

void check(const Case& c, int threads) {
  const int pad_h = std::max((((c.h + c.s - 1) / c.s) - 1) * c.s + c.k - c.h, 0);
  const int pad_w = std::max((((c.w + c.s - 1) / c.s) - 1) * c.s + c.k - c.w, 0);
  const int oh = (c.h + c.s - 1) / c.s, ow = (c.w + c.s - 1) / c.s;   // SAME
  InvertedResidual f;
  f.dw = DepthwiseParams{c.n, c.h, c.w, c.cexp, 1, c.k, c.k, c.s, c.s, 1, 1,
                         pad_h / 2, pad_w / 2, oh, ow, 0.0f, 6.0f};
  f.cin = c.cin;
  f.cout = c.lone ? c.cexp : c.cout;
  f.expand = c.expand;
  f.project = !c.lone;
  if (c.swish) f.exp_epi = f.dw_epi = Epilogue{kEpilogueSwish, -INFINITY, INFINITY};
  f.residual = c.residual;
  const float inf = INFINITY;
  f.exp_lo = 0.0f;
  f.exp_hi = 6.0f;
  f.proj_lo = -inf;
  f.proj_hi = inf;
  f.add_lo = -1.0f;
  f.add_hi = inf;
  auto x = seq(int64_t{c.n} * c.h * c.w * c.cin, 1), ew = seq(int64_t{c.cexp} * c.cin, 2),
       eb = seq(c.cexp, 3), pw = seq(int64_t{c.cout} * c.cexp, 4), pb = seq(c.cout, 5);
  f.dw_w = seq(int64_t{c.k} * c.k * c.cexp, 6);
  f.dw_b = seq(c.cexp, 7);
  if (c.expand) pack_b(ew.data(), c.cin, eb.data(), c.cexp, c.cin, f.exp_b);
  if (f.project) pack_b(pw.data(), c.cexp, pb.data(), c.cout, c.cexp, f.proj_b);
  std::vector<float> y(static_cast<size_t>(int64_t{c.n} * oh * ow * f.cout), 99.0f);
  // (odd batches: scratch one float past the allocation's start, which the kernel realigns)
  const int skew = c.n % 2;
  std::vector<float> scratch(static_cast<size_t>(threads * inverted_residual_scratch(f) + skew));
  inverted_residual_f32(f, x.data(), y.data(), scratch.data() + skew, threads);
  // the plans' form: each thread's own scratch (shared across calls), the same bits
  std::vector<float> y_own(y.size(), 98.0f);
  inverted_residual_f32(f, x.data(), y_own.data(), nullptr, threads);
  CHECK(y_own == y);

  // the reference, stage by stage
  std::vector<double> e(static_cast<size_t>(int64_t{c.n} * c.h * c.w * c.cexp));
  for (int64_t p = 0; p < int64_t{c.n} * c.h * c.w; ++p)
    for (int o = 0; o < c.cexp; ++o) {
      if (!c.expand) { e[p * c.cexp + o] = x[p * c.cin + o]; continue; }
      double acc = eb[o];
      for (int i = 0; i < c.cin; ++i) acc += double(x[p * c.cin + i]) * ew[o * c.cin + i];
      e[p * c.cexp + o] = c.swish ? swish(clampd(acc, 0.0f, 6.0f)) : clampd(acc, 0.0f, 6.0f);
    }
  std::vector<double> d(static_cast<size_t>(int64_t{c.n} * oh * ow * c.cexp));
  for (int b = 0; b < c.n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int ch = 0; ch < c.cexp; ++ch) {
          double acc = f.dw_b[ch];
          for (int ky = 0; ky < c.k; ++ky)
            for (int kx = 0; kx < c.k; ++kx) {
              const int iy = oy * c.s - pad_h / 2 + ky, ix = ox * c.s - pad_w / 2 + kx;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              acc += e[((int64_t{b} * c.h + iy) * c.w + ix) * c.cexp + ch] *
                     f.dw_w[(ky * c.k + kx) * c.cexp + ch];
            }
          acc = clampd(acc, 0.0f, 6.0f);
          d[((int64_t{b} * oh + oy) * ow + ox) * c.cexp + ch] = c.swish ? swish(acc) : acc;
        }
  if (c.lone) {
    for (size_t i = 0; i < d.size(); ++i) CHECK_NEAR(y[i], d[i], 1e-4);
    return;
  }
  for (int64_t p = 0; p < int64_t{c.n} * oh * ow; ++p)
    for (int o = 0; o < c.cout; ++o) {
      double acc = pb[o];
      for (int i = 0; i < c.cexp; ++i) acc += d[p * c.cexp + i] * pw[o * c.cexp + i];
      if (c.residual) acc = clampd(acc + x[p * c.cin + o], -1.0f, inf);
      CHECK_NEAR(y[p * c.cout + o], acc, 1e-4);
    }
}

}  // namespace

NEON_TEST(inverted_residual_forms) {
  const Case cases[] = {
      {2, 9, 11, 5, 13, 5, 3, 1, true, true},     {2, 9, 11, 5, 13, 7, 3, 2, true, false},
      {1, 10, 12, 8, 40, 9, 5, 2, true, false},   {1, 7, 7, 16, 16, 8, 3, 1, false, false},
      {3, 5, 6, 17, 35, 17, 5, 1, true, true},    {2, 23, 5, 6, 20, 6, 3, 1, true, true},
      {1, 17, 3, 4, 12, 7, 5, 2, true, false},    {1, 6, 70, 4, 24, 4, 3, 1, true, true},
      {1, 9, 37, 6, 24, 24, 3, 2, true, false},   {1, 7, 35, 5, 20, 8, 5, 2, true, false},
      {2, 9, 11, 5, 13, 5, 3, 1, true, true, true},
      {2, 9, 11, 5, 13, 0, 3, 2, true, false, true, true},
      {1, 17, 30, 6, 20, 0, 3, 1, true, false, false, true},
      {1, 10, 12, 8, 40, 0, 5, 2, true, false, true, true},
  };
  for (int threads = 1; threads <= 3; ++threads)
    for (const Case& c : cases) check(c, threads);
}
