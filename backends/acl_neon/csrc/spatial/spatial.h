// Float32 spatial kernels on NHWC tensors: depthwise convolution, 2-D pooling, bilinear resize,
// L2 / instance / local-response normalization.
//
// Every entry point takes raw pointers, a plain parameter struct and the thread count. The
// Python side validates the parameters before they get here (the pybind11 plans re-check
// them); in debug builds the kernels assert their preconditions. Fused activations are a
// clamp to [lo, hi] (+-infinity for none).
#pragma once

#include <cstdint>

#include "depthwise_params.h"
#include "epilogue.h"

namespace onert_neon {

// y[n, oh, ow, cout] = clamp(bias + sum over taps of x * w); bias has cout entries. `epi`
// (none when null: common/epilogue.h) runs on each output row right after it is computed.
void depthwise_conv_f32(const DepthwiseParams& p, const float* x, const float* w,
                        const float* bias, float* y, int threads,
                        const Epilogue* epi = nullptr);

enum class PoolKind : int { Average = 0, Max = 1 };

struct PoolParams {
  int n, h, w, c;
  int kh, kw, sh, sw, pt, pl;
  int oh, ow;
  PoolKind kind;
  float lo, hi;
};

// Average pooling divides by the number of taps on the input (padding is not counted); a
// window with no input tap gives 0 (average) or -infinity (max) before the clamp.
void pool2d_f32(const PoolParams& p, const float* x, float* y, int threads);

struct ResizeParams {
  int n, h, w, c, oh, ow;
  const int32_t* y0; const int32_t* y1; const float* dy;   // oh entries each
  const int32_t* x0; const int32_t* x1; const float* dx;   // ow entries each
};

// y = lerp(lerp(x[y0], x[y1], dy) along x0/x1 by dx): the source rows/columns are given
void resize_bilinear_f32(const ResizeParams& p, const float* x, float* y, int threads);

// per row of `depth` values: y = clamp(x / max(sqrt(sum x^2), 1e-6))
void l2_normalize_f32(const float* x, float* y, int64_t rows, int64_t depth, float lo, float hi,
                      int threads);

struct InstanceNormParams {
  int64_t n, spatial, c;         // x viewed as [n, spatial, c]
  float eps;
  int gamma_size, beta_size;     // 0 (absent), 1 or c
  float lo, hi;
};

// y = clamp((x - mean) / sqrt(var + eps) * gamma + beta), statistics per (n, c) in double
void instance_norm_f32(const InstanceNormParams& p, const float* x, const float* gamma,
                       const float* beta, float* y, int threads);

// y = x * (bias + alpha * sum of x^2 over channels c - radius .. c + radius) ^ -beta
void local_response_norm_f32(const float* x, float* y, int64_t pixels, int64_t c, int radius,
                             float bias, float alpha, float beta, int threads);

// Per-ISA bodies (the dispatchers above split the work and pick one). Row ranges index
// [0, n * oh) output rows; l2 rows index [0, rows).
using DepthwiseRowsFn = void (*)(const DepthwiseParams&, const float*, const float*,
                                 const float*, float*, int64_t, int64_t);
using PoolRowsFn = void (*)(const PoolParams&, const float*, float*, int64_t, int64_t);
using ResizeRowsFn = void (*)(const ResizeParams&, const float*, float*, int64_t, int64_t);
using L2RowsFn = void (*)(const float*, float*, int64_t, int64_t, int64_t, float, float);
// y[i, c] = clamp((x[i, c] - mean[c]) * scale[c] + shift[c]) for i in [0, count)
using NormApplyFn = void (*)(const float*, float*, int64_t, int64_t, const float*, const float*,
                             const float*, float, float);

#if defined(__x86_64__)
void depthwise_rows_avx2(const DepthwiseParams&, const float*, const float*, const float*,
                         float*, int64_t, int64_t);
void depthwise_rows_avx512(const DepthwiseParams&, const float*, const float*, const float*,
                           float*, int64_t, int64_t);
void pool_rows_avx2(const PoolParams&, const float*, float*, int64_t, int64_t);
void pool_rows_avx512(const PoolParams&, const float*, float*, int64_t, int64_t);
void resize_rows_avx2(const ResizeParams&, const float*, float*, int64_t, int64_t);
void resize_rows_avx512(const ResizeParams&, const float*, float*, int64_t, int64_t);
void l2_rows_avx2(const float*, float*, int64_t, int64_t, int64_t, float, float);
void l2_rows_avx512(const float*, float*, int64_t, int64_t, int64_t, float, float);
void norm_apply_avx2(const float*, float*, int64_t, int64_t, const float*, const float*,
                     const float*, float, float);
void norm_apply_avx512(const float*, float*, int64_t, int64_t, const float*, const float*,
                       const float*, float, float);
void row_epilogue_avx2(const Epilogue&, float*, int64_t, int64_t, int64_t);
void row_epilogue_avx512(const Epilogue&, float*, int64_t, int64_t, int64_t);
#endif

}  // namespace onert_neon
