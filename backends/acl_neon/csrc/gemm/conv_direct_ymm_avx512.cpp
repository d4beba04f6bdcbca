// The direct convolution's 8-lane bodies compiled for AVX-512 (AVX2's vector layer with the 32
// AVX-512 registers): for CPUs that split 512-bit operations in two (conv_direct.h,
// splits_512bit_ops).
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_DIRECT_ROWS conv_direct_rows_avx512_ymm
#include "conv_direct_isa.inc"
#endif  // __x86_64__
