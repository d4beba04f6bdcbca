// Float32 GEMM family of acl_neon: Conv2D, FullyConnected and TransposeConv on one packed
// GEMM. C[M x N] = A[M x K] * B[K x N] + bias, clamped to [lo, hi] in the micro-kernel's store.
//
// B (the weights, given as rows W[n][0:K], n < N) is packed once into panels of 16 columns:
// panel p holds W[p*16 + j][k] at p*K*16 + k*16 + j, zero past N; the bias is padded with zeros
// to a multiple of 32. A is read in place (rows `lda` apart: FC inputs, 1x1 stride-1 unpadded
// convolutions on NHWC) or, for other convolutions, gathered tile by tile (im2col of MR output
// pixels at a time into a per-thread scratch that stays in L1/L2).
//
// ISA micro-kernels (register tiles): AVX-512 12x32, AVX2/FMA 6x16, NEON 6x16, baseline 4x16.
#pragma once

#include <cstdint>
#include <vector>

#include "epilogue.h"
#include "weights_alloc.h"

namespace onert_neon {

constexpr int64_t kPanel = 16;   // columns per packed panel

struct PackedB {
  int64_t K = 0, N = 0;
  std::vector<float, WeightsAllocator<float>> data;   // ceil(N/16) panels of K*16 floats
                                                      // (in huge pages: weights_alloc.h)
  std::vector<float> bias;   // N rounded up to 32, zero padded
};

// Pack W ([N][K] row-major, rows `ldw` floats apart) and bias (N floats or nullptr).
void pack_b(const float* w, int64_t ldw, const float* bias, int64_t N, int64_t K, PackedB& out);
// Pack W with element (n, k) at w[n * sn + k * sk] (a transposed matrix: sn = 1, sk = N).
void pack_b_strided(const float* w, int64_t sn, int64_t sk, const float* bias, int64_t N,
                    int64_t K, PackedB& out);

// One row tile (rows <= the ISA's MR) times the columns [col0, col1) (col0 a multiple of 32).
struct TileArgs {
  int rows;
  int64_t K;
  const float* a;       // rows x K, rows `lda` floats apart
  int64_t lda;
  const PackedB* b;
  float* c;             // rows x N, rows `ldc` floats apart
  int64_t ldc;
  int64_t col0, col1;
  float lo, hi;
  bool prefetch = false;   // fetch B's next columns ahead (few row tiles share B; x86 AVX-512)
};

void gemm_tile_base(const TileArgs& t);
#if defined(__x86_64__)
void gemm_tile_avx2(const TileArgs& t);
void gemm_tile_avx512(const TileArgs& t);
#endif

// The active ISA's convolution epilogue and input gate (common/epilogue.h; epilogue.cpp).
EpilogueRowsFn epilogue_rows_fn();
GateRowFn gate_row_fn();

// C = clamp(A * B + bias), A rows `lda` apart, C rows `ldc` apart; split over `threads`; then
// `epi` (none when null) on each tile just stored.
void gemm_f32(const float* a, int64_t M, int64_t lda, const PackedB& b, float* c, int64_t ldc,
              float lo, float hi, int threads, const Epilogue* epi = nullptr);

// A per-channel gate on the input of a 1x1 stride-1 convolution (the squeeze-and-excitation
// MUL fused into the convolution that reads its result): the GEMM reads rows
// A[m][k] = clamp(x[m][k] * gate[g(m)][k], lo, hi), g(m) = m / pixels when the gate has a row
// per image (`per_image`), else 0, gathered tile by tile into the thread's scratch. The MUL's
// arithmetic (a product, then its clamp), so the results equal the MUL then the convolution.
struct InputGate {
  const float* gate;
  int64_t pixels;       // rows of A per image
  bool per_image;
  float lo, hi;
};

// C = clamp(gated(x) * B + bias), x M x K rows (K = b.K), C rows b.N apart, then `epi`.
void gated_gemm_f32(const float* x, int64_t M, const InputGate& gate, const PackedB& b,
                    float* c, float lo, float hi, int threads, const Epilogue* epi = nullptr);

// BatchMatMul: out[i] (M x N) = A[a_index[i]] * B[b_index[i]] for i < batches, where A[j] is
// M x K (stored K x M when adj_x) and B[j] is K x N (stored N x K when adj_y), matrices packed
// one after another. `scratch` (M*K floats when adj_x) holds a transposed A; B is re-packed
// only when its index changes.
struct BmmArgs {
  int64_t M, K, N, batches;
  bool adj_x, adj_y;
  const float* a;
  const float* b;
  const int64_t* a_index;
  const int64_t* b_index;
  float* out;
};
void batch_matmul_f32(const BmmArgs& args, std::vector<float>& scratch, PackedB& packed,
                      int threads);

// NHWC convolution geometry (validated by the caller: sizes > 0, the output fits).
struct ConvGeom {
  int64_t n, h, w, cin;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  int64_t oh, ow, cout;
};

// y[n, oh, ow, cout] = clamp(conv(x, W) + bias), then `epi` (none when null); W packed from
// [cout][kh][kw][cin] with K = kh*kw*cin (order kh, kw, cin).
void conv2d_f32(const ConvGeom& g, const float* x, const PackedB& b, float* y, float lo,
                float hi, int threads, const Epilogue* epi = nullptr);

// Transposed convolution: cols = x[n*h*w, cin] * B (B packed from [kh][kw][cout] x cin, N =
// kh*kw*cout; `cols` scratch of n*h*w*N floats) then every output pixel gathers its taps.
// g.h/g.w are the input's sizes, g.oh/g.ow the output's; g.pt/g.pl the top/left crop.
void transpose_conv_f32(const ConvGeom& g, const float* x, const PackedB& b, const float* bias,
                        float* cols, float* y, float lo, float hi, int threads);

}  // namespace onert_neon
