// AVX2 + FMA bodies of the fused InvertedResidual kernel (inverted_residual_isa.inc).
#if defined(__x86_64__)
#include "simd_avx2.h"
#include "simd_math.h"
#include "inverted_residual.h"

namespace onert_neon {
namespace {
using namespace simd;
#include "inverted_residual_isa.inc"
}  // namespace

void ir_dw_row_avx2(const DepthwiseParams& p, const float* const* rows, const bool* valid,
                    const float* w, const float* bias, float* yrow) {
  ir_dw_row(p, rows, valid, w, bias, yrow);
}
void ir_add_row_avx2(const float* x, float* y, int64_t n, float lo, float hi) {
  ir_add_row(x, y, n, lo, hi);
}

}  // namespace onert_neon
#endif  // __x86_64__
