// The AVX-512 GEMM's full-height tiles (12 rows) in inline assembly, 32, 24 or 16 columns wide.
// Included only by gemm_avx512.cpp.
//
// Why assembly: GCC's code for the intrinsic ukernel<12, ...> keeps 11 row offsets in
// registers, spills three and reloads them every k step. Here the rows are four base pointers
// plus 1 or 2 row strides and nothing spills: 12x32 runs at 113-116 GFLOP/s a core on Zen 4
// against 107-111 (a loop of independent FMAs: 117), 12x24 and 12x16 gain alike.
//
// The arithmetic is ukernel's: bias, then the K products in order by FMA, then the clamp unless
// `clamp` is false, so a row gives the same bits in a full tile and in a tail tile. The clamp
// keeps a NaN (vmaxps/vminps return their second source when one is NaN, and the accumulator
// is put there), as TFLite's std::max/std::min activations do.
//
// Registers: zmm0-23 the accumulators (row r: zmm2r the first 16 columns, zmm2r+1 the rest,
// ymm for 24 columns, unused for 16), zmm24-25 B's vectors, zmm26-27 the broadcast A values
// (32 columns), zmm28-29 the bias, zmm30-31 lo and hi. The last vector of a row is stored
// under the mask `last` (the columns that exist). K >= 1 (the loop counts down to 0).
#pragma once
#if defined(__x86_64__)
#include "avx512_intrin.h"

#include <cstdint>

namespace onert_neon {
namespace tile12 {

#define T12_NL "\n\t"
// 32 columns: two zmm vectors a row
#define T12_BIAS_32 "vmovups (%[bias]), %%zmm28" T12_NL "vmovups 64(%[bias]), %%zmm29" T12_NL
#define T12_INIT_32(z0, z1) "vmovaps %%zmm28, %%zmm" #z0 T12_NL "vmovaps %%zmm29, %%zmm" #z1 T12_NL
#define T12_LOADB_32 "vmovups (%[b]), %%zmm24" T12_NL "vmovups (%[b],%[pb]), %%zmm25" T12_NL
#define T12_ROW_32(src, t, z0, z1)                           \
  "vbroadcastss " src ", %%zmm" #t T12_NL                   \
  "vfmadd231ps %%zmm24, %%zmm" #t ", %%zmm" #z0 T12_NL      \
  "vfmadd231ps %%zmm25, %%zmm" #t ", %%zmm" #z1 T12_NL
#define T12_CLAMP_32(z0, z1) T12_CLAMPV(zmm, z0) T12_CLAMPV(zmm, z1)
#define T12_STORE_32(z0, z1)                                                    \
  "vmovups %%zmm" #z0 ", (%[c])" T12_NL "vmovups %%zmm" #z1 ", 64(%[c])%{%[last]%}" T12_NL
// 24 columns: a zmm vector and a ymm one
#define T12_BIAS_24 "vmovups (%[bias]), %%zmm28" T12_NL "vmovups 64(%[bias]), %%ymm29" T12_NL
#define T12_INIT_24(z0, z1) "vmovaps %%zmm28, %%zmm" #z0 T12_NL "vmovaps %%ymm29, %%ymm" #z1 T12_NL
#define T12_LOADB_24 "vmovups (%[b]), %%zmm24" T12_NL "vmovups (%[b],%[pb]), %%ymm25" T12_NL
#define T12_ROW_24(src, t, z0, z1)                                   \
  "vfmadd231ps " src "%{1to16%}, %%zmm24, %%zmm" #z0 T12_NL         \
  "vfmadd231ps " src "%{1to8%}, %%ymm25, %%ymm" #z1 T12_NL
#define T12_CLAMP_24(z0, z1) T12_CLAMPV(zmm, z0) T12_CLAMPV(ymm, z1)
#define T12_STORE_24(z0, z1)                                                    \
  "vmovups %%zmm" #z0 ", (%[c])" T12_NL "vmovups %%ymm" #z1 ", 64(%[c])%{%[last]%}" T12_NL
// 16 columns: one zmm vector
#define T12_BIAS_16 "vmovups (%[bias]), %%zmm28" T12_NL
#define T12_INIT_16(z0, z1) "vmovaps %%zmm28, %%zmm" #z0 T12_NL
#define T12_LOADB_16 "vmovups (%[b]), %%zmm24" T12_NL
#define T12_ROW_16(src, t, z0, z1) "vfmadd231ps " src "%{1to16%}, %%zmm24, %%zmm" #z0 T12_NL
#define T12_CLAMP_16(z0, z1) T12_CLAMPV(zmm, z0)
#define T12_STORE_16(z0, z1) "vmovups %%zmm" #z0 ", (%[c])%{%[last]%}" T12_NL

// PF: the next tile's B (this tile's two panels on) a k step ahead, into L1
#define T12_PREFETCH_1 "prefetcht0 (%[b],%[pb],2)" T12_NL "prefetcht0 (%[b],%[pb3],1)" T12_NL
#define T12_PREFETCH_0

// max(lo, v), then min(hi, .): v is the second source of both
#define T12_CLAMPV(r, z)                                            \
  "vmaxps %%" #r #z ", %%" #r "30, %%" #r #z T12_NL              \
  "vminps %%" #r #z ", %%" #r "31, %%" #r #z T12_NL
// row r (A at `src`) times B. 32 columns: A broadcast once into zmm t for two FMAs; 24 and 16:
// the FMAs broadcast A from memory themselves (a separate zmm broadcast takes an FP pipe slot
// on Zen 4: 12 of them beside 12 FMAs cut the FMA rate by a quarter, beside 24 not at all)
#define T12_ROW(W, src, t, z0, z1) T12_ROW_##W(src, t, z0, z1)
#define T12_EACH_ROW(M, W)                                                              \
  M(W, 0, 1) M(W, 2, 3) M(W, 4, 5) M(W, 6, 7) M(W, 8, 9) M(W, 10, 11) M(W, 12, 13)     \
  M(W, 14, 15) M(W, 16, 17) M(W, 18, 19) M(W, 20, 21) M(W, 22, 23)
#define T12_INIT(W, z0, z1) T12_INIT_##W(z0, z1)
#define T12_CLAMP(W, z0, z1) T12_CLAMP_##W(z0, z1)
#define T12_STORE(W, z0, z1) T12_STORE_##W(z0, z1) "add %[ldc], %[c]" T12_NL
#define T12_TILE(W, PF)                                                                       \
  T12_BIAS_##W "vbroadcastss %[lo], %%zmm30" T12_NL "vbroadcastss %[hi], %%zmm31" T12_NL    \
  T12_EACH_ROW(T12_INIT, W)                                                                 \
  "1:" T12_NL T12_LOADB_##W T12_PREFETCH_##PF                                              \
  T12_ROW(W, "(%[a0])", 26, 0, 1) T12_ROW(W, "(%[a0],%[s],1)", 27, 2, 3)                   \
  T12_ROW(W, "(%[a0],%[s],2)", 26, 4, 5) T12_ROW(W, "(%[a3])", 27, 6, 7)                   \
  T12_ROW(W, "(%[a3],%[s],1)", 26, 8, 9) T12_ROW(W, "(%[a3],%[s],2)", 27, 10, 11)          \
  T12_ROW(W, "(%[a6])", 26, 12, 13) T12_ROW(W, "(%[a6],%[s],1)", 27, 14, 15)               \
  T12_ROW(W, "(%[a6],%[s],2)", 26, 16, 17) T12_ROW(W, "(%[a9])", 27, 18, 19)               \
  T12_ROW(W, "(%[a9],%[s],1)", 26, 20, 21) T12_ROW(W, "(%[a9],%[s],2)", 27, 22, 23)        \
  "add $64, %[b]" T12_NL "add $4, %[a0]" T12_NL "add $4, %[a3]" T12_NL                     \
  "add $4, %[a6]" T12_NL "add $4, %[a9]" T12_NL "dec %[steps]" T12_NL "jnz 1b" T12_NL       \
  "test %[do_clamp], %[do_clamp]" T12_NL "jz 2f" T12_NL                                     \
  T12_EACH_ROW(T12_CLAMP, W) "2:" T12_NL T12_EACH_ROW(T12_STORE, W)
#define T12_OPERANDS                                                                        \
  : [a0] "+r"(a), [a3] "+r"(a3), [a6] "+r"(a6), [a9] "+r"(a9), [b] "+r"(b),                \
    [steps] "+r"(steps), [c] "+r"(c)                                                        \
  : [s] "r"(row_bytes), [pb] "r"(panel_bytes), [ldc] "r"(ldc_bytes), [bias] "r"(bias),      \
    [pb3] "r"(panel_bytes * 3),                                                             \
    [lo] "m"(lo), [hi] "m"(hi), [do_clamp] "r"(do_clamp), [last] "Yk"(last)                \
  : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",  \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", \
    "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",        \
    "xmm28", "xmm29", "xmm30", "xmm31"

// C[12 x W'] = clamp(A[12 x K] * B + bias) for W' <= W columns: W = 32 (W' 25-32), 24 (17-24)
// or 16 (9-16); `last` masks the row's last vector (its first W' - 16 columns, or W' for 16).
// b: the tile's first 16-column panel (the second, for W > 16, K*16 floats on).
// PREFETCH: fetch the next 32 columns' panels while computing these (when few row tiles share
// B, B streams from L3 or memory and the hardware prefetcher alone leaves the FMAs waiting: a
// 49x160x960 GEMM with B out of cache 161 -> 148 us, 49x320x1280 410 -> 388; with B in cache
// or many row tiles, no change). A prefetch past the end of B is harmless (it never faults).
template <int W, bool PREFETCH>
inline void tile(int64_t K, const float* a, int64_t lda, const float* b, const float* bias,
                 float* c, int64_t ldc, float lo, float hi, bool clamp, __mmask16 last) {
  static_assert(W == 32 || W == 24 || W == 16, "12x32, 12x24 or 12x16");
  const float* a3 = a + 3 * lda;
  const float* a6 = a + 6 * lda;
  const float* a9 = a + 9 * lda;
  const int64_t row_bytes = lda * 4, panel_bytes = K * 64, ldc_bytes = ldc * 4;
  const int64_t do_clamp = clamp;
  int64_t steps = K;
  if constexpr (W == 32 && PREFETCH)
    asm volatile(T12_TILE(32, 1) T12_OPERANDS);
  else if constexpr (W == 32)
    asm volatile(T12_TILE(32, 0) T12_OPERANDS);
  else if constexpr (W == 24)
    asm volatile(T12_TILE(24, 0) T12_OPERANDS);
  else
    asm volatile(T12_TILE(16, 0) T12_OPERANDS);
}

// The full-height tile of nc columns (9 to 32) from panel b: the narrowest width that holds
// them, the last vector masked to the columns that exist; `prefetch` (see tile) for 32.
inline void tile_of(int64_t nc, bool prefetch, int64_t K, const float* a, int64_t lda,
                    const float* b, const float* bias, float* c, int64_t ldc, float lo,
                    float hi, bool clamp) {
  const int64_t n = nc > 16 ? nc - 16 : nc;   // columns of the last vector
  const __mmask16 last = static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1);
  if (nc > 24 && prefetch)
    tile<32, true>(K, a, lda, b, bias, c, ldc, lo, hi, clamp, last);
  else if (nc > 24)
    tile<32, false>(K, a, lda, b, bias, c, ldc, lo, hi, clamp, last);
  else if (nc > 16)
    tile<24, false>(K, a, lda, b, bias, c, ldc, lo, hi, clamp, last);
  else
    tile<16, false>(K, a, lda, b, bias, c, ldc, lo, hi, clamp, last);
}

}  // namespace tile12
}  // namespace onert_neon

#undef T12_BIAS_16
#undef T12_BIAS_24
#undef T12_BIAS_32
#undef T12_CLAMP
#undef T12_CLAMPV
#undef T12_CLAMP_16
#undef T12_CLAMP_24
#undef T12_CLAMP_32
#undef T12_EACH_ROW
#undef T12_INIT
#undef T12_INIT_16
#undef T12_INIT_24
#undef T12_INIT_32
#undef T12_LOADB_16
#undef T12_LOADB_24
#undef T12_LOADB_32
#undef T12_NL
#undef T12_OPERANDS
#undef T12_PREFETCH_0
#undef T12_PREFETCH_1
#undef T12_ROW
#undef T12_ROW_16
#undef T12_ROW_24
#undef T12_ROW_32
#undef T12_STORE
#undef T12_STORE_16
#undef T12_STORE_24
#undef T12_STORE_32
#undef T12_TILE
#endif  // __x86_64__
