// GGML block-quantized weights of acl_neon (Circle's GGML_Q4_0, GGML_Q4_1, GGML_Q8_0 and
// GGML_Q8_1): FULLY_CONNECTED computed from the packed blocks, and GATHER of block rows.
//
// Block layouts (GGML's ggml-common.h, little-endian, 32 values a block): Q4_0 = fp16 d +
// 16 bytes of 4-bit values (byte j: value j low nibble, value j + 16 high nibble), value
// d * (q - 8); Q4_1 = fp16 d, fp16 m + 16 bytes, value d * q + m; Q8_0 = fp16 d + 32 int8,
// value d * q; Q8_1 = fp16 d, fp16 s (= d * sum q, not read) + 32 int8, value d * q.
//
// FULLY_CONNECTED follows GGML's CPU matrix product (core/quant/ggml_blocks.py has the
// definition): each row of the float input is quantized per block of 32 into Q8_0 (Q8_1 for
// Q4_1 weights) as GGML's NEON quantizer does (d = max|x| / 127, q = x * (1 / d) rounded to
// nearest, halves to even, d stored as fp16), then every output is the sum over blocks of the
// exact integer dot product of the two blocks' values times d_w * d_x (Q4_1 adds m_w * s_x),
// plus the bias, clamped. The weights are read in place, one block at a time: nothing is
// expanded.
#pragma once

#include <cstdint>
#include <vector>

namespace onert_neon {

enum class GgmlType : int { Q4_0 = 0, Q4_1 = 1, Q8_0 = 2, Q8_1 = 3 };

constexpr int64_t kGgmlBlock = 32;   // values per block

int ggml_block_bytes(GgmlType t);
// The type of a Circle type name ("GGML_Q4_0", ...); false when it is none of them.
bool ggml_type_of(const char* name, GgmlType* out);

float fp16_to_fp32(uint16_t h);
uint16_t fp32_to_fp16(float f);   // round to nearest even, as F16C and NumPy

// `count` blocks at `src` into count * 32 floats (GGML's dequantize_row_*).
void ggml_dequantize(GgmlType t, const uint8_t* src, int64_t count, float* dst);

// Rows of float activations quantized per block as the kernels read them.
struct GgmlActs {
  int64_t rows = 0, K = 0;
  std::vector<int8_t> q;        // rows * K values
  std::vector<float> d;         // rows * K/32 scales (fp16 values)
  std::vector<float> s8;        // Q8_1: rows * K/32 values s / 8 (s an fp16 value)
  std::vector<int32_t> corr;    // for Q4_0 weights: rows * K/32 values -8 * sum(q)
};
// x: rows x K floats (K a multiple of 32); `for_type` is the weights' type.
void ggml_quantize_acts(const float* x, int64_t rows, int64_t K, GgmlType for_type,
                        GgmlActs& out, int threads);

struct GgmlFcArgs {
  GgmlType type;
  int64_t M, K, N;           // input rows, depth, units
  const uint8_t* w;          // N rows of K/32 blocks
  const GgmlActs* acts;      // the M input rows, quantized for `type`
  const float* bias;         // N floats or nullptr
  float* y;                  // M x N
  float lo, hi;              // the fused clamp
};

// y[m][n] for every m and the units [n0, n1): one ISA's kernel.
void ggml_fc_cols_base(const GgmlFcArgs& a, int64_t n0, int64_t n1);
#if defined(__x86_64__)
void ggml_fc_cols_avx2(const GgmlFcArgs& a, int64_t n0, int64_t n1);
void ggml_fc_cols_avx512(const GgmlFcArgs& a, int64_t n0, int64_t n1);
#endif

// The whole product with the active ISA's kernel, units split over `threads`.
void ggml_fc(const GgmlFcArgs& a, int threads);

// GATHER of block rows: params seen as [batch][outer][limit] rows of `row_blocks` blocks, the
// output as [batch][outer][n_idx] rows of row_blocks * 32 floats; index (b, i) is
// indices[b * n_idx + i]. Returns -1, or (nothing written) the position of the first index
// outside [0, limit).
struct GgmlGatherArgs {
  GgmlType type;
  const uint8_t* params;
  int64_t batch, outer, limit, n_idx, row_blocks;
  float* out;
};
template <class Index>
int64_t ggml_gather(const GgmlGatherArgs& a, const Index* indices, int threads);

}  // namespace onert_neon
