// AVX-512 (VNNI) kernel of FULLY_CONNECTED on GGML blocks (ggml_kernels.inc): the block dots
// with vpdpbusd on 256-bit vectors (u8 x s8 quadruples summed into int32 lanes, exact).
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ggml.h"

namespace onert_neon {
namespace {

inline __m256i dot32(__m256i start, __m256i u, __m256i s) {
  return _mm256_dpbusd_epi32(start, u, s);
}

#include "ggml_kernels.inc"

}  // namespace

void ggml_fc_cols_avx512(const GgmlFcArgs& a, int64_t n0, int64_t n1) { cols_any(a, n0, n1); }

}  // namespace onert_neon
#endif  // __x86_64__
