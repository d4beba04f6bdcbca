// Float32 elementwise, activation, softmax, reduction and arg-min/max kernels (group eltwise).
//
// Every parameter is validated on the Python side (backends/acl_neon/ops/eltwise*.py); these
// functions only assert their preconditions in debug builds. Broadcasting is described by a
// collapsed output shape with per-input element strides (0 where an input is broadcast).
#pragma once

#include <cmath>
#include <cstdint>

namespace onert_neon {
namespace eltwise {

constexpr int kMaxRank = 8;

// binary ops; the comparisons write bool (one byte, 0 or 1)
enum BinOp : int {
  kAdd = 0, kSub, kMul, kDiv, kMax, kMin, kSqDiff, kPRelu,
  kEq, kNe, kLt, kLe, kGt, kGe, kBinOpCount
};

struct BinaryParams {
  int op = kAdd;
  float act_min = -INFINITY, act_max = INFINITY;   // fused clamp (RELU, RELU6, RELU_N1_TO_1)
  int rank = 1;                                    // 1..kMaxRank, collapsed
  int64_t shape[kMaxRank] = {0};                   // output shape (C-contiguous output)
  int64_t sa[kMaxRank] = {0}, sb[kMaxRank] = {0};  // element strides of a and b
  // pad_len >= 0: `a` zero-extended along the last dim (a PAD of channels folded in): rank 2,
  // a is [rows, pad_len] and holds the columns [pad_lo, pad_lo + pad_len) of each output row,
  // zero elsewhere; b and the output are [rows, n] (ADD only, so a's side does not matter)
  int64_t pad_lo = 0, pad_len = -1;
};

enum UnOp : int {
  kRelu = 0, kRelu6, kReluN1To1, kRelu0To1, kLogistic, kTanh, kLeakyRelu, kElu, kHardSwish,
  kGelu, kGeluTanh, kAbs, kNeg, kSqrt, kRsqrt, kExp, kLog, kFloor, kCeil, kRound, kSquare,
  kUnOpCount
};

struct UnaryParams {
  int op = kRelu;
  float alpha = 0.2f;    // LEAKY_RELU slope
};

enum RedOp : int { kSum = 0, kMean, kRMax, kRMin, kProd, kRedOpCount };

// The input viewed as kept and reduced dimensions (size-1 dims dropped, neighbours of the
// same kind merged); the output is the kept dims, C-contiguous, in order.
struct ReduceParams {
  int op = kSum;
  int nk = 0, nr = 0;                            // counts of kept / reduced dims
  int64_t kshape[kMaxRank] = {0}, kstride[kMaxRank] = {0};
  int64_t rshape[kMaxRank] = {0}, rstride[kMaxRank] = {0};
  bool inner_kept = true;                        // the input's last dim is a kept one
};

// ---- the entry points (dispatch on active_isa()) ----
// a, b: float; out: float, or uint8 (bool) for the comparisons
void binary(const BinaryParams& p, const float* a, const float* b, void* out, int threads);
void unary(const UnaryParams& p, const float* x, float* y, int64_t n, int threads);
// softmax over the last axis of [rows, n]: exp(beta (x - max)) / sum
void softmax(const float* x, float* y, int64_t rows, int64_t n, float beta, int threads);
void reduce(const ReduceParams& p, const float* x, float* y, int threads);
// over [outer, len, inner]: the first index of the max (min) along len; out int32 or int64
void argminmax(const float* x, void* out, bool out64, int64_t outer, int64_t len,
               int64_t inner, bool is_max, int threads);

// ---- per-ISA variants (same contracts) ----
#define ONERT_ELTWISE_DECLARE(SUFFIX)                                                      \
  void binary_##SUFFIX(const BinaryParams& p, const float* a, const float* b, void* out,    \
                       int threads);                                                       \
  void unary_##SUFFIX(const UnaryParams& p, const float* x, float* y, int64_t n,           \
                      int threads);                                                        \
  void softmax_##SUFFIX(const float* x, float* y, int64_t rows, int64_t n, float beta,     \
                        int threads);                                                      \
  void reduce_##SUFFIX(const ReduceParams& p, const float* x, float* y, int threads);      \
  void argminmax_##SUFFIX(const float* x, void* out, bool out64, int64_t outer,            \
                          int64_t len, int64_t inner, bool is_max, int threads);

ONERT_ELTWISE_DECLARE(base)
#if defined(__x86_64__)
ONERT_ELTWISE_DECLARE(avx2)
ONERT_ELTWISE_DECLARE(avx512)
#endif

}  // namespace eltwise
}  // namespace onert_neon
