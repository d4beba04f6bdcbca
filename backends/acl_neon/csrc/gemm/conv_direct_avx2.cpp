// AVX2 + FMA bodies of the direct convolution: 8 float lanes, 16 registers, masked tails.
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_DIRECT_ROWS conv_direct_rows_avx2
#include "conv_direct_isa.inc"
#endif  // __x86_64__
