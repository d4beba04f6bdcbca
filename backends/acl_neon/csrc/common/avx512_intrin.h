// <immintrin.h> for the AVX-512 files (simd_avx512.h and the *_avx512.cpp kernels). GCC 12
// warns on _mm512_undefined_*() inside the intrinsics (a known false positive); the warning
// points into the intrinsics header, so it is silenced for that header only.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
