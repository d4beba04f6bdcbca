// AVX2 body of the convolution epilogues (common/epilogue.h; called only when the CPU has it).
#if defined(__x86_64__)
#include "simd_avx2.h"
#define ONERT_EPILOGUE_ISA avx2
#include "epilogue_isa.inc"
#endif
