// The eltwise kernels compiled for AVX-512 (called only when the CPU has it).
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_ELTWISE_SUFFIX avx512
#include "impl_all.h"
#endif
