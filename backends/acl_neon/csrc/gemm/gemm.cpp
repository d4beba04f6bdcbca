// Packing, the baseline/NEON micro-kernels, ISA dispatch and the threaded GEMM driver.
#include "gemm.h"

#include <cassert>
#include <cstring>
#include <limits>

#include "gemm_driver.h"
#include "isa.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {

void pack_b_strided(const float* w, int64_t sn, int64_t sk, const float* bias, int64_t N,
                    int64_t K, PackedB& out) {
  assert(N > 0 && K > 0);
  const int64_t panels = (N + kPanel - 1) / kPanel;
  out.K = K;
  out.N = N;
  out.data.assign(static_cast<size_t>(panels * K * kPanel), 0.0f);
  out.bias.assign(static_cast<size_t>((N + 31) / 32 * 32), 0.0f);
  for (int64_t n = 0; n < N; ++n) {
    float* dst = out.data.data() + (n / kPanel) * K * kPanel + n % kPanel;
    const float* src = w + n * sn;
    for (int64_t k = 0; k < K; ++k) dst[k * kPanel] = src[k * sk];
    if (bias) out.bias[n] = bias[n];
  }
}

void pack_b(const float* w, int64_t ldw, const float* bias, int64_t N, int64_t K, PackedB& out) {
  assert(ldw >= K);
  pack_b_strided(w, ldw, 1, bias, N, K, out);
}

namespace {

inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

#if defined(__aarch64__)
constexpr int kBaseMr = 6;

// NEON 6x16 tile: 24 q-register accumulators, one 16-column panel per step
template <int MR>
void tile_neon(const TileArgs& t) {
  const int64_t K = t.K;
  const float32x4_t lo = vdupq_n_f32(t.lo), hi = vdupq_n_f32(t.hi);
  for (int64_t col = t.col0; col < t.col1; col += kPanel) {
    const float* bp = t.b->data.data() + (col / kPanel) * K * kPanel;
    const float* bias = t.b->bias.data() + col;
    float32x4_t acc[MR][4];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < 4; ++v) acc[r][v] = vld1q_f32(bias + 4 * v);
    for (int64_t k = 0; k < K; ++k) {
      const float* bk = bp + k * kPanel;
      float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4), b2 = vld1q_f32(bk + 8),
                  b3 = vld1q_f32(bk + 12);
      for (int r = 0; r < MR; ++r) {
        const float s = t.a[r * t.lda + k];
        acc[r][0] = vfmaq_n_f32(acc[r][0], b0, s);
        acc[r][1] = vfmaq_n_f32(acc[r][1], b1, s);
        acc[r][2] = vfmaq_n_f32(acc[r][2], b2, s);
        acc[r][3] = vfmaq_n_f32(acc[r][3], b3, s);
      }
    }
    const int64_t nc = t.col1 - col < kPanel ? t.col1 - col : kPanel;
    for (int r = 0; r < MR; ++r) {
      float* c = t.c + r * t.ldc + col;
      float tmp[kPanel];
      for (int v = 0; v < 4; ++v)
        vst1q_f32(tmp + 4 * v, vminq_f32(vmaxq_f32(acc[r][v], lo), hi));
      if (nc == kPanel) std::memcpy(c, tmp, sizeof(tmp));
      else for (int64_t j = 0; j < nc; ++j) c[j] = tmp[j];
    }
  }
}
#define BASE_TILE tile_neon
#else
constexpr int kBaseMr = 4;

// portable 4x16 tile (SSE2 on x86-64 once vectorized by the compiler)
template <int MR>
void tile_portable(const TileArgs& t) {
  const int64_t K = t.K;
  for (int64_t col = t.col0; col < t.col1; col += kPanel) {
    const float* bp = t.b->data.data() + (col / kPanel) * K * kPanel;
    const float* bias = t.b->bias.data() + col;
    float acc[MR][kPanel];
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < kPanel; ++j) acc[r][j] = bias[j];
    for (int64_t k = 0; k < K; ++k) {
      const float* bk = bp + k * kPanel;
      for (int r = 0; r < MR; ++r) {
        const float s = t.a[r * t.lda + k];
        for (int j = 0; j < kPanel; ++j) acc[r][j] += s * bk[j];
      }
    }
    const int64_t nc = t.col1 - col < kPanel ? t.col1 - col : kPanel;
    for (int r = 0; r < MR; ++r) {
      float* c = t.c + r * t.ldc + col;
      for (int64_t j = 0; j < nc; ++j) c[j] = clampf(acc[r][j], t.lo, t.hi);
    }
  }
}
#define BASE_TILE tile_portable
#endif

}  // namespace

void gemm_tile_base(const TileArgs& t) {
  assert(t.rows >= 1 && t.rows <= kBaseMr && t.col0 % 32 == 0);
  switch (t.rows) {
    case 1: BASE_TILE<1>(t); break;
    case 2: BASE_TILE<2>(t); break;
    case 3: BASE_TILE<3>(t); break;
    case 4: BASE_TILE<4>(t); break;
#if defined(__aarch64__)
    case 5: BASE_TILE<5>(t); break;
    case 6: BASE_TILE<6>(t); break;
#endif
    default: break;
  }
}

TileKernel tile_kernel() {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: return {gemm_tile_avx512, 12};
    case Isa::Avx2: return {gemm_tile_avx2, 6};
#endif
    default: return {gemm_tile_base, kBaseMr};
  }
}

void gemm_f32(const float* a, int64_t M, int64_t lda, const PackedB& b, float* c, int64_t ldc,
              float lo, float hi, int threads, const Epilogue* epi) {
  assert(M >= 0 && lda >= b.K && ldc >= b.N);
  run_tiles(M, b, c, ldc, lo, hi, threads, false,
            [&](int64_t m0, int, float*, int64_t& ld) { ld = lda; return a + m0 * lda; }, epi);
}

void gated_gemm_f32(const float* x, int64_t M, const InputGate& gate, const PackedB& b,
                    float* c, float lo, float hi, int threads, const Epilogue* epi) {
  const int64_t K = b.K;
  const GateRowFn gate_row = gate_row_fn();
  run_tiles(M, b, c, b.N, lo, hi, threads, true,
            [&](int64_t m0, int rows, float* scratch, int64_t& lda) {
              for (int r = 0; r < rows; ++r) {
                const int64_t m = m0 + r;
                const float* gr = gate.gate + (gate.per_image ? m / gate.pixels * K : 0);
                gate_row(x + m * K, gr, scratch + r * K, K, gate.lo, gate.hi);
              }
              lda = K;
              return static_cast<const float*>(scratch);
            }, epi);
}

void batch_matmul_f32(const BmmArgs& g, std::vector<float>& scratch, PackedB& packed,
                      int threads) {
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t a_size = g.M * g.K, b_size = g.K * g.N;
  if (g.adj_x) scratch.resize(static_cast<size_t>(a_size));
  int64_t packed_index = -1;
  for (int64_t i = 0; i < g.batches; ++i) {
    const float* a = g.a + g.a_index[i] * a_size;
    if (g.adj_x) {                       // stored K x M: gather the M x K rows
      for (int64_t m = 0; m < g.M; ++m)
        for (int64_t k = 0; k < g.K; ++k) scratch[m * g.K + k] = a[k * g.M + m];
      a = scratch.data();
    }
    if (g.b_index[i] != packed_index) {
      const float* b = g.b + g.b_index[i] * b_size;
      if (g.adj_y)
        pack_b_strided(b, g.K, 1, nullptr, g.N, g.K, packed);     // stored N x K
      else
        pack_b_strided(b, 1, g.N, nullptr, g.N, g.K, packed);     // stored K x N
      packed_index = g.b_index[i];
    }
    gemm_f32(a, g.M, g.K, packed, g.out + i * g.M * g.N, g.N, -inf, inf, threads);
  }
}

}  // namespace onert_neon
