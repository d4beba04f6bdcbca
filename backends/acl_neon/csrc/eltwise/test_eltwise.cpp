// C++ tests of the eltwise kernels against scalar references (odd sizes, threads 1 and 2).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "eltwise.h"
#include "testing.h"

using namespace onert_neon::eltwise;

namespace {

std::vector<float> ramp(int64_t n, float lo, float hi, int seed) {
  std::vector<float> v(n);
  uint32_t s = 12345u + seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f;
  }
  return v;
}

bool same_or_near(float a, float b, double tol) {
  if (std::isnan(b)) return std::isnan(a);
  if (std::isinf(b)) return a == b;
  return std::fabs(a - b) <= tol * (1.0 + std::fabs(b));
}

}  // namespace

NEON_TEST(binary_broadcast_and_clamp) {
  // out [3, 5, 37] = a [3, 1, 37] - b [5, 1], then RELU6
  BinaryParams p;
  p.op = kSub; p.act_min = 0.0f; p.act_max = 6.0f; p.rank = 3;
  p.shape[0] = 3; p.shape[1] = 5; p.shape[2] = 37;
  p.sa[0] = 37; p.sa[1] = 0; p.sa[2] = 1;
  p.sb[0] = 0; p.sb[1] = 1; p.sb[2] = 0;
  auto a = ramp(3 * 37, -8, 8, 1), b = ramp(5, -3, 3, 2);
  for (int t : {1, 2}) {
    std::vector<float> y(3 * 5 * 37, -1.0f);
    binary(p, a.data(), b.data(), y.data(), t);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 37; ++k) {
          float r = a[i * 37 + k] - b[j];
          r = r < 0 ? 0 : (r > 6 ? 6 : r);
          CHECK(y[(i * 5 + j) * 37 + k] == r);
        }
  }
}

NEON_TEST(binary_ops_and_comparisons) {
  const int64_t n = 131;
  auto a = ramp(n, -3, 3, 3), b = ramp(n, -3, 3, 4);
  for (int64_t i = 0; i < n; i += 5) b[i] = a[i];        // ties
  a[7] = NAN;
  for (int op = 0; op < kBinOpCount; ++op) {
    BinaryParams p;
    p.op = op; p.rank = 1; p.shape[0] = n; p.sa[0] = 1; p.sb[0] = 1;
    std::vector<float> y(n);
    std::vector<uint8_t> yb(n);
    for (int t : {1, 2}) {
      binary(p, a.data(), b.data(), op >= kEq ? static_cast<void*>(yb.data()) : y.data(), t);
      for (int64_t i = 0; i < n; ++i) {
        const float x = a[i], z = b[i];
        float r = 0;
        bool c = false;
        switch (op) {
          case kAdd: r = x + z; break;
          case kSub: r = x - z; break;
          case kMul: r = x * z; break;
          case kDiv: r = x / z; break;
          case kMax: r = x > z ? x : z; break;
          case kMin: r = x < z ? x : z; break;
          case kSqDiff: r = (x - z) * (x - z); break;
          case kPRelu: r = x >= 0 ? x : x * z; break;
          case kEq: c = x == z; break;
          case kNe: c = x != z; break;
          case kLt: c = x < z; break;
          case kLe: c = x <= z; break;
          case kGt: c = x > z; break;
          default: c = x >= z; break;
        }
        if (op >= kEq) CHECK(yb[i] == (c ? 1 : 0));
        else CHECK(same_or_near(y[i], r, 1e-6));
      }
    }
  }
}

NEON_TEST(unary_against_libm) {
  auto x = ramp(203, -12, 12, 5);
  x[0] = NAN; x[1] = INFINITY; x[2] = -INFINITY; x[3] = 100; x[4] = -100; x[5] = 0.5f;
  x[6] = -2.5f; x[7] = 1e-40f; x[8] = 89.0f; x[9] = -0.0f;
  const int64_t n = static_cast<int64_t>(x.size());
  for (int op = 0; op < kUnOpCount; ++op) {
    UnaryParams p;
    p.op = op; p.alpha = 0.3f;
    std::vector<float> y(n);
    for (int t : {1, 2}) {
      unary(p, x.data(), y.data(), n, t);
      for (int64_t i = 0; i < n; ++i) {
        const double v = x[i];
        double r = v;
        switch (op) {
          case kRelu: r = v < 0 ? 0 : v; break;
          case kRelu6: r = v < 0 ? 0 : (v > 6 ? 6 : v); break;
          case kReluN1To1: r = v < -1 ? -1 : (v > 1 ? 1 : v); break;
          case kRelu0To1: r = v < 0 ? 0 : (v > 1 ? 1 : v); break;
          case kLogistic: r = 1 / (1 + std::exp(-v)); break;
          case kTanh: r = std::tanh(v); break;
          case kLeakyRelu: r = v > 0 ? v : v * 0.3f; break;
          case kElu: r = v > 0 ? v : std::expm1(v); break;
          case kHardSwish: r = v * (v + 3 < 0 ? 0 : (v + 3 > 6 ? 6 : v + 3)) / 6; break;
          case kGelu: r = 0.5 * v * std::erfc(-v / std::sqrt(2.0)); break;
          case kGeluTanh:
            r = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
            break;
          case kAbs: r = std::fabs(v); break;
          case kNeg: r = -v; break;
          case kSqrt: r = std::sqrt(v); break;
          case kRsqrt: r = 1 / std::sqrt(v); break;
          case kExp: r = std::exp(v); break;
          case kLog: r = std::log(v); break;
          case kFloor: r = std::floor(v); break;
          case kCeil: r = std::ceil(v); break;
          case kRound: r = std::nearbyint(v); break;
          case kSquare: r = v * v; break;
        }
        const float rf = static_cast<float>(r);
        const bool ok = same_or_near(y[i], rf, 2e-6) || std::fabs(y[i] - r) < 1e-30;
        if (!ok) std::printf("  op %d x=%g: %g, expected %g\n", op, v, y[i], r);
        CHECK(ok);
      }
    }
  }
}

// exp's final scaling by 2^n (common/simd_*.h vldexp) rounds once: subnormal results are within
// one subnormal step, results near FLT_MAX within the polynomial's error, beyond it inf
NEON_TEST(exp_subnormal_and_near_overflow) {
  std::vector<float> x = {-87.2f, -88.5f, -90.3f, -95.7f, -99.9f, -102.1f, -103.2f, 87.9f,
                          88.3f, 88.7f, 88.76f, 88.9f, -126.0f, -200.0f};
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> y(n);
  UnaryParams p;
  p.op = kExp;
  unary(p, x.data(), y.data(), n, 1);
  for (int64_t i = 0; i < n; ++i) {
    const double r = std::exp(static_cast<double>(x[i]));
    bool ok;
    if (r > 3.4028234663852886e38) ok = std::isinf(y[i]) && y[i] > 0;
    else if (r < 1.1754943508222875e-38) ok = std::fabs(y[i] - r) <= 1.401298464324817e-45;
    else ok = std::fabs(y[i] - r) <= 1e-6 * r;
    if (!ok) std::printf("  exp(%g) = %g, expected %g\n", x[i], y[i], r);
    CHECK(ok);
  }
}

// LOGISTIC (common/simd_math.h vlogistic) within 4 ulp of the double-precision definition on
// [-87, 87] over a sweep of every sign and exponent (each 997th bit pattern, 8.6 million
// floats); 1 above, within 1.7e-38 below (the logistic of -87, never a subnormal)
NEON_TEST(unary_logistic_ulp) {
  std::vector<float> x;
  for (uint64_t u = 0; u < 0x100000000ull; u += 997) {
    const uint32_t b = static_cast<uint32_t>(u);
    float v;
    std::memcpy(&v, &b, 4);
    if (!std::isnan(v)) x.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> y(n);
  UnaryParams p;
  p.op = kLogistic;
  unary(p, x.data(), y.data(), n, 2);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = 1.0 / (1.0 + std::exp(-static_cast<double>(x[i])));
    const float rf = static_cast<float>(r);
    const double ulp = std::nextafter(rf, 2.0f) - rf;
    double err = std::fabs(y[i] - r) / ulp;
    if (x[i] > 87) err = y[i] == 1.0f ? 0 : 99;
    if (x[i] < -87) err = y[i] >= 1.17549435e-38f && y[i] <= 1.7e-38f ? 0 : 99;
    if (err > 4) std::printf("  logistic(%.9g) = %.9g, expected %.9g\n", x[i], y[i], r);
    worst = std::max(worst, err);
  }
  CHECK(worst <= 4);
}

NEON_TEST(softmax_rows) {
  for (int64_t n : {1, 7, 33, 1000}) {
    const int64_t rows = 5;
    auto x = ramp(rows * n, -20, 20, 6);
    std::vector<float> y(rows * n);
    for (int t : {1, 2}) {
      softmax(x.data(), y.data(), rows, n, 0.7f, t);
      for (int64_t r = 0; r < rows; ++r) {
        double mx = -1e30, s = 0;
        for (int64_t i = 0; i < n; ++i) mx = x[r * n + i] > mx ? x[r * n + i] : mx;
        for (int64_t i = 0; i < n; ++i) s += std::exp((x[r * n + i] - mx) * 0.7);
        for (int64_t i = 0; i < n; ++i)
          CHECK_NEAR(y[r * n + i], std::exp((x[r * n + i] - mx) * 0.7) / s, 1e-5);
      }
    }
  }
}

NEON_TEST(reduce_inner_and_outer) {
  // input [4, 6, 21]: reduce axis 1 (inner kept) and axes {0, 2} (inner reduced)
  auto x = ramp(4 * 6 * 21, -2, 2, 7);
  for (int op = 0; op < kRedOpCount; ++op) {
    for (int t : {1, 2}) {
      ReduceParams p;
      p.op = op; p.nk = 2; p.nr = 1; p.inner_kept = true;
      p.kshape[0] = 4; p.kstride[0] = 126; p.kshape[1] = 21; p.kstride[1] = 1;
      p.rshape[0] = 6; p.rstride[0] = 21;
      std::vector<float> y(4 * 21);
      reduce(p, x.data(), y.data(), t);
      ReduceParams q;
      q.op = op; q.nk = 1; q.nr = 2; q.inner_kept = false;
      q.kshape[0] = 6; q.kstride[0] = 21;
      q.rshape[0] = 4; q.rstride[0] = 126; q.rshape[1] = 21; q.rstride[1] = 1;
      std::vector<float> z(6);
      reduce(q, x.data(), z.data(), t);
      auto fold = [&](double acc, double v) {
        if (op == kRMax) return v > acc ? v : acc;
        if (op == kRMin) return v < acc ? v : acc;
        if (op == kProd) return acc * v;
        return acc + v;
      };
      const double init = op == kRMax ? -1e30 : op == kRMin ? 1e30 : op == kProd ? 1 : 0;
      for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 21; ++k) {
          double acc = init;
          for (int j = 0; j < 6; ++j) acc = fold(acc, x[i * 126 + j * 21 + k]);
          CHECK_NEAR(y[i * 21 + k], op == kMean ? acc / 6 : acc, 1e-5);
        }
      for (int j = 0; j < 6; ++j) {
        double acc = init;
        for (int i = 0; i < 4; ++i)
          for (int k = 0; k < 21; ++k) acc = fold(acc, x[i * 126 + j * 21 + k]);
        CHECK_NEAR(z[j], op == kMean ? acc / 84 : acc, 1e-5);
      }
    }
  }
}

// Kept last dims reduced down one image's rows (a global pool: one kept row, its columns split
// across threads in runs of whole vectors) and over two reduced dims (offsets not a stride):
// every column equals a float accumulation in the reduced offsets' order, bit for bit, at 1-3
// threads, for column counts that end in partial vectors and span several runs
// ADD of a zero-extended along the last dim (a PAD of channels folded in: pad_len >= 0) gives
// the bits of the ADD of the explicitly padded tensor: runs before, inside and after a's
// columns, widths that end in partial vectors, clamps that bind, -0.0 in b, 1-3 threads
NEON_TEST(binary_padded_channels) {
  struct Case { int64_t rows, n, lo, len; };
  for (const Case& k : {Case{37, 28, 0, 24}, Case{5, 64, 0, 32}, Case{9, 45, 3, 17},
                        Case{300, 20, 20, 0}, Case{3, 16, 0, 16}})
    for (float hi : {INFINITY, 0.5f})
      for (int t : {1, 2, 3}) {
        auto a = ramp(k.rows * k.len, -1, 1, 11), b = ramp(k.rows * k.n, -1, 1, 12);
        b[0] = -0.0f;
        std::vector<float> full(static_cast<size_t>(k.rows * k.n), 0.0f);
        for (int64_t r = 0; r < k.rows; ++r)
          for (int64_t j = 0; j < k.len; ++j) full[r * k.n + k.lo + j] = a[r * k.len + j];
        BinaryParams q;
        q.op = kAdd; q.act_min = hi < 1 ? 0.0f : -INFINITY; q.act_max = hi;
        q.rank = 2; q.shape[0] = k.rows; q.shape[1] = k.n;
        q.sa[0] = k.n; q.sa[1] = 1; q.sb[0] = k.n; q.sb[1] = 1;
        std::vector<float> want(static_cast<size_t>(k.rows * k.n) + 1, 99.0f), got = want;
        binary(q, full.data(), b.data(), want.data(), 1);
        BinaryParams p = q;
        p.sa[0] = k.len; p.pad_lo = k.lo; p.pad_len = k.len;
        binary(p, a.data(), b.data(), got.data(), t);
        CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
      }
}

NEON_TEST(reduce_kept_columns_in_order) {
  struct Case { int nk; int64_t ks[2], kst[2]; int nr; int64_t rs[2], rst[2]; };
  std::vector<Case> cases;
  for (int64_t n : {1, 5, 16, 21, 32, 96, 200, 1280})
    cases.push_back({1, {n, 0}, {1, 0}, 1, {n > 200 ? 49 : 300, 0}, {n, 0}});
  cases.push_back({2, {3, 40}, {7 * 40, 1}, 2, {5, 7}, {3 * 7 * 40, 40}});   // [5, 3, 7, 40]
  for (const Case& c : cases) {
    const int64_t nk = c.nk == 1 ? c.ks[0] : c.ks[0] * c.ks[1];
    const int64_t nred = c.nr == 1 ? c.rs[0] : c.rs[0] * c.rs[1];
    const auto x = ramp(nk * nred, 0.5f, 1.5f, 9);
    for (int op = 0; op < kRedOpCount; ++op)
      for (int t : {1, 2, 3}) {
        ReduceParams p;
        p.op = op; p.nk = c.nk; p.nr = c.nr; p.inner_kept = true;
        for (int d = 0; d < 2; ++d) {
          p.kshape[d] = c.ks[d]; p.kstride[d] = c.kst[d];
          p.rshape[d] = c.rs[d]; p.rstride[d] = c.rst[d];
        }
        std::vector<float> y(nk + 1, 99.0f);
        reduce(p, x.data(), y.data(), t);
        bool same = true;
        for (int64_t o = 0; o < nk; ++o) {
          const int64_t ko = c.nk == 1 ? o : o / c.ks[1] * c.kst[0] + o % c.ks[1];
          float acc = op == kRMax ? -INFINITY : op == kRMin ? INFINITY : op == kProd ? 1.0f : 0.0f;
          for (int64_t r = 0; r < nred; ++r) {
            const int64_t ro = c.nr == 1 ? r * c.rst[0] : r / c.rs[1] * c.rst[0] + r % c.rs[1] * c.rst[1];
            const float v = x[ko + ro];
            acc = op == kRMax ? (acc > v ? acc : v) : op == kRMin ? (acc < v ? acc : v)
                : op == kProd ? acc * v : acc + v;
          }
          if (op == kMean) acc /= static_cast<float>(nred);
          same = same && y[o] == acc;
        }
        CHECK(same);
        CHECK(y[nk] == 99.0f);
      }
  }
}

NEON_TEST(argminmax_ties_and_nan) {
  // [3, 37, 5] along axis 1 and [5, 67] along the last axis; ties from coarse values
  for (int64_t inner : {int64_t{1}, int64_t{5}, int64_t{19}}) {
    const int64_t outer = 3, len = 67;
    auto x = ramp(outer * len * inner, -3, 3, 8);
    for (auto& v : x) v = std::round(v);
    x[inner * 3] = NAN;
    x[inner * len] = NAN;                       // the first value of the second slab
    x[2 * inner * len + 1] = NAN;
    for (bool is_max : {true, false})
      for (int t : {1, 2}) {
        std::vector<int32_t> y(outer * inner, -1);
        std::vector<int64_t> y64(outer * inner, -1);
        argminmax(x.data(), y.data(), false, outer, len, inner, is_max, t);
        argminmax(x.data(), y64.data(), true, outer, len, inner, is_max, t);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < inner; ++j) {
            const float* c = x.data() + o * len * inner + j;
            float bv = c[0];
            int64_t bi = 0;
            for (int64_t i = 1; i < len; ++i)
              if ((is_max ? c[i * inner] > bv : c[i * inner] < bv) ||
                  (std::isnan(bv) && !std::isnan(c[i * inner]))) {
                bv = c[i * inner];
                bi = i;
              }
            CHECK(y[o * inner + j] == bi);
            CHECK(y64[o * inner + j] == bi);
          }
      }
  }
}
