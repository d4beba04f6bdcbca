// AVX-512 bodies of the fused InvertedResidual kernel (inverted_residual_isa.inc).
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_IR_ISA avx512
#include "inverted_residual_isa.inc"
#endif  // __x86_64__
