// The fused InvertedResidual kernel's driver (inverted_residual.h): bands of output rows per
// thread, the ring of expanded rows, the GEMM micro-kernel over row tiles; and the baseline
// bodies (SSE2 / NEON / portable).
#include "inverted_residual.h"


#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "gemm_driver.h"
#include "isa.h"
#include "parallel.h"
#include "simd_base.h"
#include "simd_math.h"

namespace onert_neon {
namespace {

using namespace simd;
#include "inverted_residual_rows.inc"

constexpr int kMaxK = 5;

struct Bodies {
  DwRowFromFn dw;
  AddRowFn add;
};

Bodies active_bodies() {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: return {ir_dw_row_avx512, ir_add_row_avx512};
    case Isa::Avx2: return {ir_dw_row_avx2, ir_add_row_avx2};
#endif
    default: return {ir_dw_row, ir_add_row};
  }
}

// c[rows x N] = clamp(a[rows x K] * B + bias), a's rows `lda` apart: the micro-kernel over
// row tiles of the ISA's height, every column of B (what gemm_f32 computes for these rows),
// then the epilogue `epi` (when not null) on each tile just stored, as gemm_f32's driver does
void gemm_rows(const TileKernel& tk, const float* a, int64_t rows, int64_t lda,
               const PackedB& b, float* c, float lo, float hi, EpilogueRowsFn epi_fn = nullptr,
               const Epilogue* epi = nullptr) {
  for (int64_t m0 = 0; m0 < rows; m0 += tk.mr) {
    const int n = static_cast<int>(rows - m0 < tk.mr ? rows - m0 : tk.mr);
    TileArgs t{n, b.K, a + m0 * lda, lda, &b, c + m0 * b.N, b.N, 0, b.N, lo, hi};
    tk.fn(t);
    if (epi) epi_fn(*epi, c + m0 * b.N, n, b.N, b.N);
  }
}

const Epilogue* active(const Epilogue& e) { return e.kind == kEpilogueNone ? nullptr : &e; }

// Output rows per step: enough that the project GEMM of a step has ~kStepPixels rows (narrow
// late layers: 14 or 7 pixels a row would leave the micro-kernel's tiles mostly empty).
constexpr int64_t kStepPixels = 48;

int64_t step_rows(const DepthwiseParams& p) {
  const int64_t r = (kStepPixels + p.ow - 1) / p.ow;
  return r < p.oh ? r : p.oh;
}

// ring slots: the input rows of a step's depthwise windows
int64_t ring_rows(const DepthwiseParams& p) { return (step_rows(p) - 1) * p.sh + p.kh; }

}  // namespace

// A thread's scratch starts on a cache line (kAlign floats: 64 bytes), as every row in it does
// when the channels are a multiple of 16: the vector loads of the depthwise rows then never
// straddle two lines (that halves their rate).
constexpr int64_t kAlign = 16;

// This OS thread's scratch of at least `floats`, shared by every block the thread runs (a
// pool worker runs one job at a time; a caller thread its own session's ops in order).
static float* thread_scratch(int64_t floats) {
  thread_local std::vector<float> mine;
  if (mine.size() < static_cast<size_t>(floats)) mine.resize(static_cast<size_t>(floats));
  return mine.data();
}

int64_t inverted_residual_scratch(const InvertedResidual& f) {
  const DepthwiseParams& p = f.dw;
  const int64_t ring = f.expand || f.stem ? ring_rows(p) * p.w * p.cin : 0;
  const int64_t used = ring + (f.project ? step_rows(p) * p.ow * p.cin : 0);
  return (used + kAlign - 1) / kAlign * kAlign + kAlign;   // + the slack to align the start
}

void inverted_residual_f32(const InvertedResidual& f, const float* x, float* y, float* scratch,
                           int threads) {
  const DepthwiseParams& p = f.dw;
  assert(p.kh == p.kw && (p.kh == 3 || p.kh == 5) && p.dh == 1 && p.dw == 1 && p.mult == 1);
  const TileKernel tk = tile_kernel();
  const Bodies fn = active_bodies();
  const int64_t C = p.cin, row_len = int64_t{p.w} * C;
  const int64_t in_row = int64_t{p.w} * f.cin, out_row = int64_t{p.ow} * f.cout;
  const int64_t per_thread = inverted_residual_scratch(f);
  const int64_t R = step_rows(p), slots = ring_rows(p);
  // a band must be worth a fork/join: at least ~1 MFLOP (a row's depthwise and project work,
  // plus the expand work of its new rows)
  const ConvGeom& sg = f.stem_g;
  const int64_t row_flops =
      2 * p.ow * C * (p.kh * p.kw + (f.project ? f.cout : 0)) +
      (f.expand ? 2 * int64_t{p.sh} * p.w * f.cin * C : 0) +
      (f.stem ? 2 * int64_t{p.sh} * p.w * sg.kh * sg.kw * sg.cin * C : 0);
  const int64_t grain = 1 + 1000000 / (row_flops + 1);
  const DirectRowsFn stem_rows = f.stem ? direct_rows_fn(f.stem_w.narrow) : nullptr;
  const EpilogueRowsFn epi_fn = epilogue_rows_fn();
  const Epilogue *exp_epi = active(f.exp_epi), *dw_epi = active(f.dw_epi);
  parallel_range(threads, int64_t{p.n} * p.oh, grain, [&](int64_t r0, int64_t r1) {
    float* ring = scratch ? scratch + parallel_slot() * per_thread : thread_scratch(per_thread);
    ring += (kAlign - reinterpret_cast<uintptr_t>(ring) / sizeof(float) % kAlign) % kAlign;
    const bool ringed = f.expand || f.stem;
    float* dwrows = ring + (ringed ? slots * row_len : 0);
    std::vector<DirectRun> runs(f.stem ? static_cast<size_t>(2 * sg.kh * sg.kw) : 0);
    int64_t first = -1, next = -1;   // the ring holds input rows [first, next) (b * h + iy)
    for (int64_t r = r0; r < r1;) {
      const int64_t b = r / p.oh;
      const int oy0 = static_cast<int>(r % p.oh);
      const int rows = static_cast<int>(std::min({R, r1 - r, int64_t{p.oh} - oy0}));
      const int lo = std::max(oy0 * p.sh - p.pt, 0);
      const int hi = std::min((oy0 + rows - 1) * p.sh - p.pt + p.kh, p.h);   // input rows
      if (ringed) {
        const int64_t base = b * p.h;
        if (first < base || next < base + lo || first > base + lo) first = next = base + lo;
        // expand (or compute the stem's) rows [max(next, base + lo), base + hi): consecutive
        // in x, consecutive ring slots (row iy in slot iy % slots) but for the wrap-around
        for (int64_t k = std::max(next, base + lo); k < base + hi;) {
          const int64_t slot = (k - base) % slots;
          const int64_t count = std::min(base + hi - k, slots - slot);
          if (f.stem) {
            DirectArgs a{&sg, x, f.stem_w.w.data(), f.stem_w.bias.data(), f.stem_w.coutp,
                         ring + slot * row_len, f.exp_lo, f.exp_hi, runs.data(), k};
            stem_rows(a, k, k + count);
            if (exp_epi) epi_fn(*exp_epi, ring + slot * row_len, count * p.w, C, C);
          } else {
            gemm_rows(tk, x + k * in_row, count * p.w, f.cin, f.exp_b, ring + slot * row_len,
                      f.exp_lo, f.exp_hi, epi_fn, exp_epi);
          }
          k += count;
        }
        next = std::max(next, base + hi);
        first = std::max(first, next - slots);
      }
      for (int j = 0; j < rows; ++j) {
        const int oy = oy0 + j;
        const float* in_rows[kMaxK];
        bool valid[kMaxK];
        int any = -1;
        for (int ky = 0; ky < p.kh; ++ky) {
          const int iy = oy * p.sh - p.pt + ky;
          valid[ky] = iy >= 0 && iy < p.h;
          if (!valid[ky]) continue;
          in_rows[ky] = ringed ? ring + (iy % slots) * row_len : x + (b * p.h + iy) * row_len;
          any = ky;
        }
        assert(any >= 0);     // the plan checks that every output row has an input row
        for (int ky = 0; ky < p.kh; ++ky)
          if (!valid[ky]) in_rows[ky] = in_rows[any];      // read, times zero weights
        // without a project the depthwise row is the block's output row
        float* d = f.project ? dwrows + j * p.ow * C : y + (r + j) * out_row;
        fn.dw(p, in_rows, valid, f.dw_w.data(), f.dw_b.data(), d);
        if (dw_epi) epi_fn(*dw_epi, d, 1, p.ow * C, p.ow * C);
      }
      float* yr = y + r * out_row;
      if (f.project)
        gemm_rows(tk, dwrows, int64_t{rows} * p.ow, C, f.proj_b, yr, f.proj_lo, f.proj_hi);
      if (f.residual) fn.add(x + r * in_row, yr, rows * out_row, f.add_lo, f.add_hi);
      r += rows;
    }
  });
}

}  // namespace onert_neon
