// AVX-512 bodies of the direct convolution: 16 float lanes, 32 registers, mask-register tails.
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_DIRECT_ROWS conv_direct_rows_avx512
#include "conv_direct_isa.inc"
#endif  // __x86_64__
