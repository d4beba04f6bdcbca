// A MobileNet inverted-residual block as one float32 kernel (NHWC), fused by the compiler from
// the ops the acl_neon backend proposes (backends/acl_neon/fusion.py):
//
//   e = act_e(clamp_e(x * We + be))     1x1 expand conv (optional: absent, e = x)
//     or act_e(clamp_e(conv(x, Ws) + bs))  or the network's stem: a KHs x KWs convolution over
//                                       few input channels (the direct convolution,
//                                       conv_direct.h), whose output is then never written
//   d = act_d(clamp_d(depthwise(e) + bd))  KH x KW depthwise (KH = KW in {3, 5}), stride,
//                                       padding
//   p = clamp_p(d * Wp + bp)            1x1 project conv (optional: absent, y = d)
//   y = clamp_a(x + p)                  residual ADD (optional: absent, y = p)
//
// act_e and act_d: the activation ops after a convolution (swish or hard-swish, common/
// epilogue.h; none by default), applied to each tile or row as it is computed, as the
// unfused convolutions' epilogues do. Without a project the block ends with d, written whole
// (EfficientNet's blocks, whose squeeze-and-excitation gate reads all of d before the
// project can run): the expanded tensor is still never written.
//
// computed output row by output row, so that neither e nor d is ever written whole: a thread
// keeps a ring of KH expanded rows (row iy in slot iy % KH) and one depthwise row. For each
// output row it expands the input rows the depthwise window needs that the ring lacks, computes
// the depthwise row from the ring, the project GEMM of that row straight into y, and adds the
// block input row in the row's epilogue. Output rows are split into one band per thread; a
// band starts with an empty ring (its first rows are expanded again by the band above).
//
// Every element is computed with the unfused kernels' arithmetic in their order: the 1x1
// convolutions are the packed GEMM's micro-kernel over the same rows (gemm.h), the depthwise
// row is the spatial kernels' code (common/dw_rows.inc), the ADD one rounding of a + b and the
// same clamp; so the block's result is bit-identical to the three or four ops run apart.
#pragma once

#include <cstdint>
#include <vector>

#include "conv_direct.h"
#include "depthwise_params.h"
#include "gemm.h"

namespace onert_neon {

struct InvertedResidual {
  DepthwiseParams dw;            // n, h, w: the block input's; cin: expanded channels; mult 1
  int64_t cin = 0, cout = 0;     // block input and output channels
  bool expand = false;           // an expand conv (else the depthwise reads x itself)
  PackedB exp_b;                 // cin -> dw.cin
  bool stem = false;             // a stem conv instead (x: its input; not with expand)
  ConvGeom stem_g;               // h, w, cin: x's; oh, ow, cout: dw.h, dw.w, dw.cin
  DirectWeights stem_w;
  float exp_lo = 0, exp_hi = 0;  // the clamp of the expand or stem conv
  Epilogue exp_epi, dw_epi;      // the activations after the expand (or stem) and depthwise
  std::vector<float> dw_w;       // [kh][kw][dw.cin]
  std::vector<float> dw_b;       // dw.cin
  bool project = true;           // a project conv (else y = d, cout = dw.cin, no residual)
  PackedB proj_b;                // dw.cin -> cout
  float proj_lo = 0, proj_hi = 0;
  bool residual = false;         // y = x + p (then stride 1, h = oh, w = ow, cin = cout;
                                 // no stem)
  float add_lo = 0, add_hi = 0;
};

// Scratch floats one thread needs (ring + depthwise row, rounded to cache lines, and the slack
// that lets the kernel start every thread's part on a cache line wherever `scratch` is).
int64_t inverted_residual_scratch(const InvertedResidual& f);

// y = the block of x; `scratch` holds threads * inverted_residual_scratch(f) floats, or is
// null: each thread then uses its own, kept per OS thread and shared by every block it runs
// (the plans' way: consecutive blocks find the ring in L2 instead of each plan's own buffer,
// fetched from L3 or memory on every run).
void inverted_residual_f32(const InvertedResidual& f, const float* x, float* y, float* scratch,
                           int threads);

// Per-ISA bodies: one depthwise row from KH given rows (dw_row_from of common/dw_rows.inc;
// KH = KW = 3 or 5), and y[i] = clamp(x[i] + y[i]) over n floats (the ADD's arithmetic).
using DwRowFromFn = void (*)(const DepthwiseParams&, const float* const*, const bool*,
                             const float*, const float*, float*);
using AddRowFn = void (*)(const float*, float*, int64_t, float, float);
#if defined(__x86_64__)
void ir_dw_row_avx2(const DepthwiseParams&, const float* const*, const bool*, const float*,
                    const float*, float*);
void ir_dw_row_avx512(const DepthwiseParams&, const float* const*, const bool*, const float*,
                      const float*, float*);
void ir_add_row_avx2(const float*, float*, int64_t, float, float);
void ir_add_row_avx512(const float*, float*, int64_t, float, float);
#endif

}  // namespace onert_neon
