// The parameters of a float32 depthwise convolution on NHWC tensors, shared by the spatial
// kernels (spatial/spatial.h) and the fused InvertedResidual kernel (gemm/inverted_residual.h),
// which compute depthwise rows with the same code (common/dw_rows.inc).
#pragma once

namespace onert_neon {

struct DepthwiseParams {
  int n, h, w, cin, mult;        // input NHWC; output channels cout = cin * mult
  int kh, kw;                    // filter 1 x kh x kw x cout
  int sh, sw, dh, dw;            // strides and dilations (>= 1)
  int pt, pl;                    // padding before (top, left)
  int oh, ow;                    // output height and width
  float lo, hi;                  // fused activation clamp
};

}  // namespace onert_neon
