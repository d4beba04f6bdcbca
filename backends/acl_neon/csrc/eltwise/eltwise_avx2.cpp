// The eltwise kernels compiled for AVX2/FMA (called only when the CPU has them).
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_ELTWISE_SUFFIX avx2
#include "impl_all.h"
#endif
