// AVX-512 bodies of the direct convolution: 16 float lanes, mask-register tails.
#if defined(__x86_64__)
#include "simd_avx512.h"
#include "simd_math.h"
#include "conv_direct.h"

namespace onert_neon {
namespace {

using namespace simd;

#include "conv_direct_kernels.inc"

}  // namespace

void conv_direct_rows_avx512(const DirectArgs& a, int64_t r0, int64_t r1) {
  direct_rows(a, r0, r1);
}

}  // namespace onert_neon
#endif  // __x86_64__
