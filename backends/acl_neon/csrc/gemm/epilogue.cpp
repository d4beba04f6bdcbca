// The baseline body (SSE2 on x86-64, NEON on aarch64) of the convolution epilogues
// (common/epilogue.h) and the choice of the active ISA's, which the GEMM driver applies to each
// tile it has just stored (gemm_driver.h).
#include "gemm.h"
#include "isa.h"
#include "simd_base.h"
#define ONERT_EPILOGUE_ISA base
#include "epilogue_isa.inc"

namespace onert_neon {

#if defined(__x86_64__)
void tile_epilogue_avx2(const Epilogue&, float*, int64_t, int64_t, int64_t);
void tile_epilogue_avx512(const Epilogue&, float*, int64_t, int64_t, int64_t);
#endif

EpilogueRowsFn epilogue_rows_fn() {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: return tile_epilogue_avx512;
    case Isa::Avx2: return tile_epilogue_avx2;
#endif
    default: return tile_epilogue_base;
  }
}

}  // namespace onert_neon
