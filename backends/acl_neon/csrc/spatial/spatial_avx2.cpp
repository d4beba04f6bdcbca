// AVX2 + FMA bodies of the spatial kernels: 8 float lanes, masked tails.
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_SPATIAL_ISA avx2
#include "spatial_isa.inc"
#endif  // __x86_64__
