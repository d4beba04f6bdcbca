// The eltwise kernels compiled for AVX-512 (called only when the CPU has it).
#if defined(__x86_64__)
// GCC 12 warns on _mm512_undefined_ps() inside the intrinsics headers (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "vec_avx512.h"
#define ONERT_ELTWISE_SUFFIX avx512
#include "impl_all.h"
#endif
