// Activations a convolution applies to its own output, on the rows it has just stored (still in
// L1/L2), where the model had separate ops after it (the compiler's cross-op fusion; the Python
// side: backends/acl_neon/fusion.py, ops/conv_epilogue.py). Each computes, lane by lane, what
// the eltwise group's kernels compute for those ops (common/simd_math.h's vector functions at
// the same ISA level), so a fused result is bit-identical to the ops run one by one:
//   kEpilogueSwish      MUL(y, LOGISTIC(y)) with the MUL's fused clamp [lo, hi]
//   kEpilogueHardSwish  HARD_SWISH(y)
// The bodies: common/epilogue_rows.inc, compiled once per ISA in each group that uses them.
#pragma once

#include <cstdint>

namespace onert_neon {

enum EpilogueKind : int { kEpilogueNone = 0, kEpilogueSwish = 1, kEpilogueHardSwish = 2 };

struct Epilogue {
  int kind = kEpilogueNone;
  float lo = -__builtin_inff(), hi = __builtin_inff();   // the MUL's clamp (swish)
};

// What is wrong with an epilogue's parameters (for the pybind11 plans), nullptr when valid.
inline const char* epilogue_error(int kind, float lo, float hi) {
  if (kind < kEpilogueNone || kind > kEpilogueHardSwish)
    return "epilogue: 0 (none), 1 (swish) or 2 (hard-swish)";
  if (!(lo <= hi)) return "epilogue: the clamp range is empty";
  return nullptr;
}

// The definition, in double (the C++ tests' reference).
inline double epilogue_ref(const Epilogue& e, double y) {
  if (e.kind == kEpilogueSwish) {
    const double v = y / (1.0 + __builtin_exp(-y));
    return v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
  }
  if (e.kind == kEpilogueHardSwish) {
    const double r = y + 3.0 < 0.0 ? 0.0 : (y + 3.0 > 6.0 ? 6.0 : y + 3.0);
    return y * r / 6.0;
  }
  return y;
}

// y[r * ld + i] = epilogue(y[r * ld + i]) for r < rows, i < n
using EpilogueRowsFn = void (*)(const Epilogue&, float* y, int64_t rows, int64_t n, int64_t ld);
// dst[k] = clamp(x[k] * gate[k], lo, hi) for k < n (a MUL by a per-channel gate, as the eltwise
// MUL computes it; gemm.h's InputGate)
using GateRowFn = void (*)(const float* x, const float* gate, float* dst, int64_t n, float lo,
                           float hi);

}  // namespace onert_neon
