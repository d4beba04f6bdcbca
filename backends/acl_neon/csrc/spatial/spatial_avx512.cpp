// AVX-512 bodies of the spatial kernels: 16 float lanes, mask-register tails.
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_SPATIAL_ISA avx512
#include "spatial_isa.inc"
#endif  // __x86_64__
