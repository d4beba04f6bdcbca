// The direct convolution's AVX2-width bodies compiled for AVX-512 (8 float lanes, 32 vector
// registers): for cout with a half-vector tail (cout % 16 in 1..8, e.g. 24), where 16-lane
// vectors would multiply zero padding.
#if defined(__x86_64__)
#include "simd_avx2.h"
#include "simd_math.h"
#include "conv_direct.h"

namespace onert_neon {
namespace {

using namespace simd;

#include "conv_direct_kernels.inc"

}  // namespace

void conv_direct_rows_avx512_ymm(const DirectArgs& a, int64_t r0, int64_t r1) {
  direct_rows(a, r0, r1);
}

}  // namespace onert_neon
#endif  // __x86_64__
