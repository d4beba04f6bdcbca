// AVX2 + FMA bodies of the fused InvertedResidual kernel (inverted_residual_isa.inc).
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_IR_ISA avx2
#include "inverted_residual_isa.inc"
#endif  // __x86_64__
