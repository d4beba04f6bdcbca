// Spatial kernels against plain scalar references: odd channel counts (vector tails), padding,
// strides, dilations, multipliers, activations, the swish / hard-swish epilogues, 1 and 2
// threads.
#include <cmath>
#include <cstdint>
#include <vector>

#include "spatial.h"
#include "testing.h"

using namespace onert_neon;

namespace {

std::vector<float> pattern(int64_t n, int seed) {
  std::vector<float> v(n);
  uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (auto& f : v) {
    s = s * 1664525u + 1013904223u;
    f = static_cast<float>((s >> 8) % 2001) / 500.0f - 2.0f;    // [-2, 2]
  }
  return v;
}

float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

std::vector<float> ref_depthwise(const DepthwiseParams& p, const std::vector<float>& x,
                                 const std::vector<float>& w, const std::vector<float>& b) {
  const int co = p.cin * p.mult;
  std::vector<float> y(int64_t{p.n} * p.oh * p.ow * co);
  for (int n = 0; n < p.n; ++n)
    for (int oy = 0; oy < p.oh; ++oy)
      for (int ox = 0; ox < p.ow; ++ox)
        for (int o = 0; o < co; ++o) {
          double acc = b[o];
          for (int ky = 0; ky < p.kh; ++ky)
            for (int kx = 0; kx < p.kw; ++kx) {
              int iy = oy * p.sh - p.pt + ky * p.dh, ix = ox * p.sw - p.pl + kx * p.dw;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
              acc += double(x[((int64_t{n} * p.h + iy) * p.w + ix) * p.cin + o / p.mult]) *
                     w[(ky * p.kw + kx) * co + o];
            }
          y[((int64_t{n} * p.oh + oy) * p.ow + ox) * co + o] =
              clampf(static_cast<float>(acc), p.lo, p.hi);
        }
  return y;
}

int out_size(int in, int k, int s, int d, bool same) {
  return same ? (in + s - 1) / s : (in - ((k - 1) * d + 1)) / s + 1;
}

int pad_before(int in, int k, int s, int d, int out) {
  int total = (out - 1) * s + (k - 1) * d + 1 - in;
  return total > 0 ? total / 2 : 0;
}

void check_all(const std::vector<float>& got, const std::vector<float>& want, double tol) {
  CHECK(got.size() == want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1.0 + std::fabs(want[i])))) {
      CHECK_NEAR(got[i], want[i], tol);
      ++bad;
    }
}

}  // namespace

NEON_TEST(depthwise_conv_shapes) {
  struct Case { int n, h, w, c, mult, k, s, d; bool same; float lo, hi; };
  const float inf = INFINITY;
  const Case cases[] = {
      {1, 9, 11, 37, 1, 3, 1, 1, true, 0, 6},   {2, 10, 9, 20, 1, 3, 2, 1, true, -inf, inf},
      {1, 12, 13, 19, 1, 5, 1, 1, true, 0, inf}, {1, 11, 12, 33, 1, 5, 2, 1, true, -1, 1},
      {1, 8, 9, 5, 1, 3, 1, 2, false, -inf, inf}, {1, 7, 7, 3, 1, 2, 1, 1, true, -inf, inf},
      {2, 6, 7, 3, 2, 3, 1, 1, true, 0, 6},     {1, 7, 8, 4, 3, 2, 2, 2, true, -inf, inf},
      {1, 5, 6, 16, 1, 7, 1, 1, true, -inf, inf}, {1, 2, 3, 8, 1, 3, 3, 1, true, -inf, inf},
      {1, 4, 17, 48, 1, 3, 1, 1, false, 0, 6},   {1, 3, 3, 1, 1, 5, 1, 1, true, -inf, inf},
      // rows wide enough for the 8- and 4-column runs (stride 1 and 2) and their remainders
      {1, 7, 37, 21, 1, 3, 2, 1, true, 0, 6},    {2, 6, 38, 17, 1, 3, 2, 1, false, -inf, inf},
      {1, 9, 41, 35, 1, 5, 2, 1, true, -1, 1},   {1, 8, 43, 16, 1, 5, 2, 1, false, 0, inf},
      {1, 5, 29, 24, 1, 5, 1, 1, true, 0, 6},    {2, 5, 27, 40, 1, 3, 1, 1, false, -inf, inf},
      // stride 2 over several channel blocks: column segments (dw_rows.inc's kDwSegment), the
      // last one partial, each with its edges, runs and channel tail
      {1, 5, 70, 40, 1, 3, 2, 1, true, 0, 6},    {1, 6, 69, 33, 1, 5, 2, 1, false, -inf, inf},
  };
  int seed = 0;
  for (const Case& t : cases) {
    DepthwiseParams p{};
    p.n = t.n; p.h = t.h; p.w = t.w; p.cin = t.c; p.mult = t.mult; p.kh = p.kw = t.k;
    p.sh = p.sw = t.s; p.dh = p.dw = t.d;
    p.oh = out_size(t.h, t.k, t.s, t.d, t.same);
    p.ow = out_size(t.w, t.k, t.s, t.d, t.same);
    p.pt = t.same ? pad_before(t.h, t.k, t.s, t.d, p.oh) : 0;
    p.pl = t.same ? pad_before(t.w, t.k, t.s, t.d, p.ow) : 0;
    p.lo = t.lo; p.hi = t.hi;
    const int co = t.c * t.mult;
    auto x = pattern(int64_t{t.n} * t.h * t.w * t.c, ++seed);
    auto w = pattern(int64_t{t.k} * t.k * co, ++seed);
    auto b = pattern(co, ++seed);
    auto want = ref_depthwise(p, x, w, b);
    for (int threads : {1, 2}) {
      std::vector<float> y(want.size(), 123.0f);
      depthwise_conv_f32(p, x.data(), w.data(), b.data(), y.data(), threads);
      check_all(y, want, 1e-5);
    }
  }
}

// the swish / hard-swish epilogue on each output row (multiplier 1 and 2, 3x3 and 5x5, and
// any filter size; rows split over threads)
NEON_TEST(depthwise_conv_epilogues) {
  const float inf = INFINITY;
  struct Case { int n, h, w, c, mult, k, s; };
  const Case cases[] = {{2, 9, 11, 37, 1, 3, 1}, {1, 12, 13, 19, 1, 5, 2}, {1, 7, 8, 4, 2, 3, 1},
                        {1, 8, 9, 20, 1, 2, 1}, {1, 40, 40, 32, 1, 3, 1}};
  int seed = 30;
  for (const Case& t : cases)
    for (Epilogue e : {Epilogue{kEpilogueSwish, -inf, inf}, Epilogue{kEpilogueSwish, -0.1f, 0.3f},
                       Epilogue{kEpilogueHardSwish, -inf, inf}}) {
      DepthwiseParams p{};
      p.n = t.n; p.h = t.h; p.w = t.w; p.cin = t.c; p.mult = t.mult; p.kh = p.kw = t.k;
      p.sh = p.sw = t.s; p.dh = p.dw = 1;
      p.oh = out_size(t.h, t.k, t.s, 1, true);
      p.ow = out_size(t.w, t.k, t.s, 1, true);
      p.pt = pad_before(t.h, t.k, t.s, 1, p.oh);
      p.pl = pad_before(t.w, t.k, t.s, 1, p.ow);
      p.lo = -1.0f; p.hi = 6.0f;
      const int co = t.c * t.mult;
      auto x = pattern(int64_t{t.n} * t.h * t.w * t.c, ++seed);
      auto w = pattern(int64_t{t.k} * t.k * co, ++seed);
      auto b = pattern(co, ++seed);
      auto want = ref_depthwise(p, x, w, b);
      for (float& v : want) v = static_cast<float>(epilogue_ref(e, v));
      for (int threads : {1, 2}) {
        std::vector<float> y(want.size(), 123.0f);
        depthwise_conv_f32(p, x.data(), w.data(), b.data(), y.data(), threads, &e);
        check_all(y, want, 1e-5);
      }
    }
}

NEON_TEST(pool2d_average_and_max) {
  struct Case { int n, h, w, c, kh, kw, s; bool same; bool max; float lo, hi; };
  const float inf = INFINITY;
  const Case cases[] = {
      {1, 7, 9, 19, 3, 3, 2, true, false, -inf, inf}, {2, 7, 9, 19, 3, 3, 2, true, true, 0, 6},
      {1, 8, 8, 35, 2, 2, 2, false, true, -inf, inf}, {1, 7, 7, 33, 7, 7, 1, false, false, -1, 1},
      {1, 6, 5, 3, 3, 2, 1, true, false, 0, inf},    {1, 5, 5, 1, 5, 5, 1, true, true, -inf, inf},
  };
  int seed = 50;
  for (const Case& t : cases) {
    PoolParams p{};
    p.n = t.n; p.h = t.h; p.w = t.w; p.c = t.c; p.kh = t.kh; p.kw = t.kw; p.sh = p.sw = t.s;
    p.oh = out_size(t.h, t.kh, t.s, 1, t.same);
    p.ow = out_size(t.w, t.kw, t.s, 1, t.same);
    p.pt = t.same ? pad_before(t.h, t.kh, t.s, 1, p.oh) : 0;
    p.pl = t.same ? pad_before(t.w, t.kw, t.s, 1, p.ow) : 0;
    p.kind = t.max ? PoolKind::Max : PoolKind::Average;
    p.lo = t.lo; p.hi = t.hi;
    auto x = pattern(int64_t{t.n} * t.h * t.w * t.c, ++seed);
    std::vector<float> want(int64_t{t.n} * p.oh * p.ow * t.c);
    for (int n = 0; n < t.n; ++n)
      for (int oy = 0; oy < p.oh; ++oy)
        for (int ox = 0; ox < p.ow; ++ox)
          for (int c = 0; c < t.c; ++c) {
            double acc = t.max ? -INFINITY : 0.0;
            int count = 0;
            for (int ky = 0; ky < t.kh; ++ky)
              for (int kx = 0; kx < t.kw; ++kx) {
                int iy = oy * t.s - p.pt + ky, ix = ox * t.s - p.pl + kx;
                if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
                double v = x[((int64_t{n} * t.h + iy) * t.w + ix) * t.c + c];
                acc = t.max ? (v > acc ? v : acc) : acc + v;
                ++count;
              }
            if (!t.max) acc /= count;
            want[((int64_t{n} * p.oh + oy) * p.ow + ox) * t.c + c] =
                clampf(static_cast<float>(acc), t.lo, t.hi);
          }
    for (int threads : {1, 2}) {
      std::vector<float> y(want.size(), 123.0f);
      pool2d_f32(p, x.data(), y.data(), threads);
      check_all(y, want, 1e-5);
    }
  }
}

NEON_TEST(resize_bilinear_indices) {
  const int n = 2, h = 5, w = 4, c = 21, oh = 9, ow = 7;
  std::vector<int32_t> y0(oh), y1(oh), x0(ow), x1(ow);
  std::vector<float> dy(oh), dx(ow);
  for (int i = 0; i < oh; ++i) {         // align_corners-style source positions
    float s = i * float(h - 1) / (oh - 1);
    y0[i] = static_cast<int>(std::floor(s));
    y1[i] = y0[i] + 1 < h ? y0[i] + 1 : h - 1;
    dy[i] = s - y0[i];
  }
  for (int i = 0; i < ow; ++i) {
    float s = (i + 0.5f) * float(w) / ow - 0.5f;
    s = s < 0 ? 0 : s;
    x0[i] = static_cast<int>(std::floor(s));
    x1[i] = x0[i] + 1 < w ? x0[i] + 1 : w - 1;
    dx[i] = s - x0[i];
  }
  ResizeParams p{n, h, w, c, oh, ow, y0.data(), y1.data(), dy.data(),
                 x0.data(), x1.data(), dx.data()};
  auto x = pattern(int64_t{n} * h * w * c, 7);
  auto at = [&](int b, int yy, int xx, int k) { return x[((b * h + yy) * w + xx) * c + k]; };
  std::vector<float> want(int64_t{n} * oh * ow * c);
  for (int b = 0; b < n; ++b)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j)
        for (int k = 0; k < c; ++k) {
          float l = at(b, y0[i], x0[j], k) + (at(b, y1[i], x0[j], k) - at(b, y0[i], x0[j], k)) * dy[i];
          float r = at(b, y0[i], x1[j], k) + (at(b, y1[i], x1[j], k) - at(b, y0[i], x1[j], k)) * dy[i];
          want[((b * oh + i) * ow + j) * c + k] = l + (r - l) * dx[j];
        }
  for (int threads : {1, 2}) {
    std::vector<float> y(want.size(), 123.0f);
    resize_bilinear_f32(p, x.data(), y.data(), threads);
    check_all(y, want, 1e-5);
  }
}

NEON_TEST(l2_normalize_rows) {
  for (int64_t depth : {1, 3, 16, 37, 100}) {
    const int64_t rows = 5;
    auto x = pattern(rows * depth, int(depth));
    x[0] = 0.0f;
    if (depth == 1) x[2] = 0.0f;             // an all-zero row: divided by 1e-6
    std::vector<float> want(x.size());
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t k = 0; k < depth; ++k) s += double(x[r * depth + k]) * x[r * depth + k];
      double d = std::sqrt(s) > 1e-6 ? std::sqrt(s) : 1e-6;
      for (int64_t k = 0; k < depth; ++k)
        want[r * depth + k] = clampf(float(x[r * depth + k] / d), -INFINITY, 0.5f);
    }
    for (int threads : {1, 2}) {
      std::vector<float> y(x.size(), 123.0f);
      l2_normalize_f32(x.data(), y.data(), rows, depth, -INFINITY, 0.5f, threads);
      check_all(y, want, 1e-5);
    }
  }
}

NEON_TEST(instance_norm_stats) {
  for (int64_t c : {1, 5, 19, 70}) {
    const int64_t n = 2, s = 13;
    auto x = pattern(n * s * c, int(c) + 3);
    auto gamma = pattern(c, 1), beta = pattern(c, 2);
    for (int gsize : {0, 1, int(c)}) {
      InstanceNormParams p{n, s, c, 1e-3f, gsize, gsize == 0 ? 1 : int(c), 0.0f, INFINITY};
      std::vector<float> want(x.size());
      for (int64_t b = 0; b < n; ++b)
        for (int64_t k = 0; k < c; ++k) {
          double mean = 0, var = 0;
          for (int64_t i = 0; i < s; ++i) mean += x[(b * s + i) * c + k];
          mean /= s;
          for (int64_t i = 0; i < s; ++i) {
            double d = x[(b * s + i) * c + k] - mean;
            var += d * d;
          }
          var /= s;
          double g = gsize == 0 ? 1.0 : gamma[gsize == 1 ? 0 : k];
          double bt = gsize == 0 ? beta[0] : beta[k];
          for (int64_t i = 0; i < s; ++i) {
            double v = (x[(b * s + i) * c + k] - mean) / std::sqrt(var + 1e-3f) * g + bt;
            want[(b * s + i) * c + k] = clampf(float(v), 0.0f, INFINITY);
          }
        }
      for (int threads : {1, 2}) {
        std::vector<float> y(x.size(), 123.0f);
        instance_norm_f32(p, x.data(), gamma.data(), beta.data(), y.data(), threads);
        check_all(y, want, 2e-5);
      }
    }
  }
}

NEON_TEST(local_response_norm) {
  const int64_t pixels = 6, c = 11;
  auto x = pattern(pixels * c, 9);
  for (int radius : {0, 2, 20}) {
    std::vector<float> want(x.size());
    for (int64_t i = 0; i < pixels; ++i)
      for (int64_t k = 0; k < c; ++k) {
        double sum = 0;
        for (int64_t j = k - radius; j <= k + radius; ++j)
          if (j >= 0 && j < c) sum += double(x[i * c + j]) * x[i * c + j];
        want[i * c + k] = float(x[i * c + k] * std::pow(1.5 + 0.3 * sum, -0.75));
      }
    for (int threads : {1, 2}) {
      std::vector<float> y(x.size(), 123.0f);
      local_response_norm_f32(x.data(), y.data(), pixels, c, radius, 1.5f, 0.3f, 0.75f, threads);
      check_all(y, want, 1e-5);
    }
  }
}
