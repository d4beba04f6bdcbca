// AVX2 + FMA bodies of the recurrent kernels: 8 float lanes, masked tails.
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_RECURRENT_ISA avx2
#include "recurrent_isa.inc"
#endif
