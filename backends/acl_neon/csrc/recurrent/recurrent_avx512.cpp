// AVX-512 bodies of the recurrent kernels: 16 float lanes, mask-register tails.
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_RECURRENT_ISA avx512
#include "recurrent_isa.inc"
#endif
