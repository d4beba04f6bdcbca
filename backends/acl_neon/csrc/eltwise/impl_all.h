// The group's entry points for one ISA: the including file defines ONERT_ELTWISE_SUFFIX and
// includes its vector layer (common/simd_base.h, simd_avx2.h or simd_avx512.h) first.
#pragma once

#include "simd_math.h"

namespace onert_neon {
namespace eltwise {
using namespace ::onert_neon::simd;   // V, W, M, load/store/..., vexp/vlog/... for impl_*.h
}  // namespace eltwise
}  // namespace onert_neon

#include "impl_binary.h"
#include "impl_reduce.h"
#include "impl_unary.h"

#define ONERT_ELTWISE_NAME2(name, suffix) name##_##suffix
#define ONERT_ELTWISE_NAME(name, suffix) ONERT_ELTWISE_NAME2(name, suffix)

namespace onert_neon {
namespace eltwise {

void ONERT_ELTWISE_NAME(binary, ONERT_ELTWISE_SUFFIX)(const BinaryParams& p, const float* a,
                                                      const float* b, void* out, int threads) {
  binary_impl(p, a, b, out, threads);
}
void ONERT_ELTWISE_NAME(unary, ONERT_ELTWISE_SUFFIX)(const UnaryParams& p, const float* x,
                                                     float* y, int64_t n, int threads) {
  unary_impl(p, x, y, n, threads);
}
void ONERT_ELTWISE_NAME(softmax, ONERT_ELTWISE_SUFFIX)(const float* x, float* y, int64_t rows,
                                                       int64_t n, float beta, int threads) {
  softmax_impl(x, y, rows, n, beta, threads);
}
void ONERT_ELTWISE_NAME(reduce, ONERT_ELTWISE_SUFFIX)(const ReduceParams& p, const float* x,
                                                      float* y, int threads) {
  reduce_impl(p, x, y, threads);
}
void ONERT_ELTWISE_NAME(argminmax, ONERT_ELTWISE_SUFFIX)(const float* x, void* out, bool out64,
                                                         int64_t outer, int64_t len,
                                                         int64_t inner, bool is_max,
                                                         int threads) {
  argminmax_impl(x, out, out64, outer, len, inner, is_max, threads);
}

}  // namespace eltwise
}  // namespace onert_neon
