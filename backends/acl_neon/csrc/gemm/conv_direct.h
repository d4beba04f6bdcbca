// Direct float32 convolution for few input channels (the first convolution of a CNN: RGB in).
//
// With K = kh*kw*cin as small as 27, the GEMM path (conv.cpp: an im2col gather of cin-float
// runs per 12-pixel tile, then the packed micro-kernel) spends as long gathering as
// multiplying. Here the weights are repacked once to [kh][kw][cin][coutp] (coutp = cout
// rounded up to 16, zero padded) and each output row is computed in blocks of P pixels x
// (1..NV vectors of cout) accumulators held in registers: per tap, one weight load per vector
// and one broadcast of the input value per pixel, read straight from the NHWC input (TFLite's
// reference Conv does the same sum: bias + every in-bounds tap, here in (ky, kx, c) order).
// Pixels whose window crosses the left/right padding get their own one-pixel blocks over the
// in-bounds taps only; rows of the window above/below the input are skipped. Threads split
// the output rows.
#pragma once

#include <cstdint>
#include <vector>

#include "gemm.h"

namespace onert_neon {

// The filters ConvPlan gives the direct path (at construction): windows of more than one pixel
// over at most 16 input channels. Measured at 1 thread (Zen 4, AVX-512), GEMM / direct: 3->32
// 3x3 s2 on 224x224 365 / 212 us, 3->24 5x5 s2 on 128x128 265 / 137 us, 8->32 3x3 on 112x112
// 718 / 531 us, 16->32 3x3 on 56x56 326 / 252 us, 32->64 3x3 on 56x56 1142 / 1046 us, but
// 64->128 3x3 s2 on 56x56 1083 / 1281 us; 1x1 filters (the GEMM reads them in place) even.
constexpr int64_t kDirectMaxCin = 16;
inline bool direct_conv_fits(const ConvGeom& g) {
  return g.cin <= kDirectMaxCin && g.kh * g.kw > 1;
}

struct DirectWeights {
  int64_t coutp = 0;         // cout rounded up to 16
  std::vector<float, WeightsAllocator<float>> w;   // [kh][kw][cin][coutp] (weights_alloc.h)
  std::vector<float> bias;   // coutp, zero padded
  bool narrow = false;       // at the AVX-512 level: 8-lane vectors (32 registers), not 16-lane
};

// AMD Zen 4 (family 19h with AVX-512) executes a 512-bit operation as two 256-bit halves:
// there 8-lane vectors in the 32 AVX-512 registers measure faster (mobilenet_v2's stem 212 us
// against 240 us at 1 thread), also for couts such as 24 that 16-lane vectors would pad to 32.
bool splits_512bit_ops();

// Repack w ([cout][kh][kw][cin], TFLite's OHWI) and bias (cout floats or nullptr); `narrow`
// from splits_512bit_ops().
void pack_direct(const ConvGeom& g, const float* w, const float* bias, DirectWeights& out);

// y[n, oh, ow, cout] = clamp(conv(x, W) + bias, lo, hi), then `epi` (if any) on each output
// row right after the row is computed (common/epilogue.h)
void conv_direct_f32(const ConvGeom& g, const float* x, const DirectWeights& d, float* y,
                     float lo, float hi, int threads, const Epilogue* epi = nullptr);

// ---- the per-ISA bodies (conv_direct_kernels.inc) -------------------------------------------

// `len` consecutive taps of one window row: input floats at x .. x+len-1 (relative to the
// pixel's window origin), weight rows w/coutp .. (relative to the packed weights)
struct DirectRun {
  int64_t x, w, len;
};

struct DirectArgs {
  const ConvGeom* g;
  const float* x;        // the input
  const float* w;        // packed weights, rows of ldw floats
  const float* bias;     // ldw floats
  int64_t ldw;           // coutp
  float* y;
  float lo, hi;
  DirectRun* runs;       // scratch of 2*kh*kw runs (one thread's)
  int64_t y_row0 = 0;    // y holds the output rows from y_row0 on (a fused block's ring)
};

// output rows [r0, r1) of [0, n*oh)
using DirectRowsFn = void (*)(const DirectArgs&, int64_t r0, int64_t r1);
// the rows function of the running CPU (`narrow`: DirectWeights::narrow)
DirectRowsFn direct_rows_fn(bool narrow);
#if defined(__x86_64__)
void conv_direct_rows_avx2(const DirectArgs&, int64_t, int64_t);
void conv_direct_rows_avx512(const DirectArgs&, int64_t, int64_t);
void conv_direct_rows_avx512_ymm(const DirectArgs&, int64_t, int64_t);
#endif

}  // namespace onert_neon
