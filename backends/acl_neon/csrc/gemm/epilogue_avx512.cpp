// AVX-512 body of the convolution epilogues (common/epilogue.h; called only when the CPU has it).
#if defined(__x86_64__)
#include "simd_avx512.h"
#define ONERT_EPILOGUE_ISA avx512
#include "epilogue_isa.inc"
#endif
