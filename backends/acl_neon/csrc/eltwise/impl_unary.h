// Generic unary kernels (activations and math functions) on the including ISA file's vector layer.
#pragma once

#include "eltwise.h"
#include "parallel.h"

namespace onert_neon {
namespace eltwise {
namespace {

template <int OP>
inline V apply_unary(V x, V alpha) {
  if constexpr (OP == kRelu) return vmax(set1(0.0f), x);          // NaN stays NaN
  if constexpr (OP == kRelu6) return vmin(set1(6.0f), vmax(set1(0.0f), x));
  if constexpr (OP == kReluN1To1) return vmin(set1(1.0f), vmax(set1(-1.0f), x));
  if constexpr (OP == kRelu0To1) return vmin(set1(1.0f), vmax(set1(0.0f), x));
  if constexpr (OP == kLogistic) return vlogistic(x);
  if constexpr (OP == kTanh) return vtanh(x);
  if constexpr (OP == kLeakyRelu) return select(gt(x, set1(0.0f)), x, mul(x, alpha));
  if constexpr (OP == kElu) return select(gt(x, set1(0.0f)), x, vexpm1(x));
  if constexpr (OP == kHardSwish) return vhard_swish(x);
  if constexpr (OP == kGelu)   // 0.5 x erfc(-x / sqrt 2)
    return mul(mul(set1(0.5f), x), verfc(mul(x, set1(-0.70710678118654752f))));
  if constexpr (OP == kGeluTanh) {
    V inner = mul(set1(0.79788456080286536f), fmadd(mul(mul(x, x), x), set1(0.044715f), x));
    return mul(mul(set1(0.5f), x), add(set1(1.0f), vtanh(inner)));
  }
  if constexpr (OP == kAbs) return vabs(x);
  if constexpr (OP == kNeg) return vneg(x);
  if constexpr (OP == kSqrt) return vsqrt(x);
  if constexpr (OP == kRsqrt) return div(set1(1.0f), vsqrt(x));
  if constexpr (OP == kExp) return vexp(x);
  if constexpr (OP == kLog) return vlog(x);
  if constexpr (OP == kFloor) return vfloor(x);
  if constexpr (OP == kCeil) return vceil(x);
  if constexpr (OP == kRound) return vround(x);
  if constexpr (OP == kSquare) return mul(x, x);
  return x;
}

template <int OP>
void unary_range(const float* x, float* y, int64_t n, float alpha) {
  const V va = set1(alpha);
  int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, apply_unary<OP>(load(x + i), va));
  if (i < n) {                        // the tail through a full vector
    float tmp[W];
    int64_t r = n - i;
    for (int k = 0; k < W; ++k) tmp[k] = k < r ? x[i + k] : 0.0f;
    store(tmp, apply_unary<OP>(load(tmp), va));
    for (int64_t k = 0; k < r; ++k) y[i + k] = tmp[k];
  }
}

// elements per thread before a second thread pays: cheap ops move memory, others compute
inline int64_t unary_grain(int op) {
  switch (op) {
    case kRelu: case kRelu6: case kReluN1To1: case kRelu0To1: case kLeakyRelu: case kAbs:
    case kNeg: case kFloor: case kCeil: case kRound: case kSquare: case kHardSwish:
      return 1 << 16;
    default:
      return 1 << 13;
  }
}

template <int OP>
void unary_run(const UnaryParams& p, const float* x, float* y, int64_t n, int threads) {
  parallel_range(threads, n, unary_grain(OP), [&](int64_t b, int64_t e) {
    unary_range<OP>(x + b, y + b, e - b, p.alpha);
  });
}

void unary_impl(const UnaryParams& p, const float* x, float* y, int64_t n, int threads) {
  switch (p.op) {
#define ONERT_UN(OP) case OP: unary_run<OP>(p, x, y, n, threads); break;
    ONERT_UN(kRelu) ONERT_UN(kRelu6) ONERT_UN(kReluN1To1) ONERT_UN(kRelu0To1)
    ONERT_UN(kLogistic) ONERT_UN(kTanh) ONERT_UN(kLeakyRelu) ONERT_UN(kElu)
    ONERT_UN(kHardSwish) ONERT_UN(kGelu) ONERT_UN(kGeluTanh) ONERT_UN(kAbs) ONERT_UN(kNeg)
    ONERT_UN(kSqrt) ONERT_UN(kRsqrt) ONERT_UN(kExp) ONERT_UN(kLog) ONERT_UN(kFloor)
    ONERT_UN(kCeil) ONERT_UN(kRound) ONERT_UN(kSquare)
#undef ONERT_UN
    default: break;
  }
}

}  // namespace
}  // namespace eltwise
}  // namespace onert_neon
