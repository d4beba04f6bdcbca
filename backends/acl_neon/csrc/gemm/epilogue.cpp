// The baseline body (SSE2 on x86-64, NEON on aarch64) of the convolution epilogues and the
// input gate (common/epilogue.h), and the choice of the active ISA's: the GEMM driver applies
// an epilogue to each tile it has just stored (gemm_driver.h); gated_gemm_f32 gates the input
// rows it gathers.
#include "gemm.h"
#include "isa.h"
#include "simd_base.h"
#define ONERT_EPILOGUE_ISA base
#include "epilogue_isa.inc"

namespace onert_neon {

#if defined(__x86_64__)
void tile_epilogue_avx2(const Epilogue&, float*, int64_t, int64_t, int64_t);
void tile_epilogue_avx512(const Epilogue&, float*, int64_t, int64_t, int64_t);
void gate_row_avx2(const float*, const float*, float*, int64_t, float, float);
void gate_row_avx512(const float*, const float*, float*, int64_t, float, float);
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

GateRowFn gate_row_fn() {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: return gate_row_avx512;
    case Isa::Avx2: return gate_row_avx2;
#endif
    default: return gate_row_base;
  }
}

}  // namespace onert_neon
