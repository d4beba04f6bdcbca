// Baseline (portable C++; NEON on aarch64) bodies of the recurrent kernels, the dispatch on
// active_isa() and the LSTM / RNN time loops.
#include "recurrent.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "isa.h"
#include "parallel.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {
namespace {

#if defined(__aarch64__)
struct V {
  using R = float32x4_t;
  using M = uint32x4_t;
  static constexpr int W = 4;
  static R set1(float f) { return vdupq_n_f32(f); }
  static R load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, R v) { vst1q_f32(p, v); }
  static R load_n(const float* p, int n) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; ++i) t[i] = p[i];
    return vld1q_f32(t);
  }
  static void store_n(float* p, R v, int n) {
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; ++i) p[i] = t[i];
  }
  static R fma(R a, R b, R c) { return vfmaq_f32(c, a, b); }
  static R add(R a, R b) { return vaddq_f32(a, b); }
  static R sub(R a, R b) { return vsubq_f32(a, b); }
  static R mul(R a, R b) { return vmulq_f32(a, b); }
  static R div(R a, R b) { return vdivq_f32(a, b); }
  static R max(R a, R b) { return vmaxq_f32(a, b); }
  static R min(R a, R b) { return vminq_f32(a, b); }
  static M lt(R a, R b) { return vcltq_f32(a, b); }
  static R select(M m, R a, R b) { return vbslq_f32(m, a, b); }
  static R round(R x) { return vrndnq_f32(x); }
  static R scale2(R y, R n) { return mul(y, pow2n(n)); }
  static R pow2n(R n) {
    int32x4_t e = vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(e, 23));
  }
};
#else
struct V {   // one lane: the portable baseline
  using R = float;
  using M = bool;
  static constexpr int W = 1;
  static R set1(float f) { return f; }
  static R load(const float* p) { return *p; }
  static void store(float* p, R v) { *p = v; }
  static R load_n(const float* p, int) { return *p; }
  static void store_n(float* p, R v, int) { *p = v; }
  static R fma(R a, R b, R c) { return a * b + c; }
  static R add(R a, R b) { return a + b; }
  static R sub(R a, R b) { return a - b; }
  static R mul(R a, R b) { return a * b; }
  static R div(R a, R b) { return a / b; }
  static R max(R a, R b) { return a > b ? a : b; }
  static R min(R a, R b) { return a < b ? a : b; }
  static M lt(R a, R b) { return a < b; }
  static R select(M m, R a, R b) { return m ? a : b; }
  static R round(R x) { return std::nearbyint(x); }
  static R scale2(R y, R n) { return mul(y, pow2n(n)); }
  static R pow2n(R n) {
    int32_t e = (static_cast<int32_t>(n) + 127) << 23;
    float f;
    std::memcpy(&f, &e, sizeof f);
    return f;
  }
};
#endif

#include "rec_kernels.inc"

struct Fns {
  void (*gemv)(const GemvArgs&);
  void (*cell)(const CellArgs&);
  void (*act)(float*, int64_t, int);
};

Fns pick() {
#if defined(__x86_64__)
  switch (active_isa()) {
    case Isa::Avx512: return {gemv_avx512, cell_avx512, act_avx512};
    case Isa::Avx2: return {gemv_avx2, cell_avx2, act_avx2};
    default: break;
  }
#endif
  return {gemv_base, cell_base, act_base};
}

}  // namespace

void gemv_base(const GemvArgs& a) { gemv_impl(a); }
void cell_base(const CellArgs& a) { cell_impl(a); }
void act_base(float* x, int64_t n, int act) { act_impl(x, n, act); }

void rec_gemv(const GemvArgs& a) { pick().gemv(a); }
void rec_cell(const CellArgs& a) { pick().cell(a); }
void rec_act(float* x, int64_t n, int act) { pick().act(x, n, act); }

void lstm_sequence_f32(const LstmSeq& s, int threads) {
  const Fns fn = pick();
  const int64_t nz = (s.cifg ? 3 : 4) * s.n_cell;
  parallel_range(threads, s.batch, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> z(static_cast<size_t>(nz)), hc(static_cast<size_t>(s.n_cell));
    for (int64_t b = b0; b < b1; ++b) {
      float* h = s.h + b * s.n_output;
      float* c = s.c + b * s.n_cell;
      for (int64_t t = 0; t < s.steps; ++t) {
        const int64_t row = s.time_major ? t * s.batch + b : b * s.steps + t;
        fn.gemv({s.xw + row * nz, h, s.n_output, s.wh_t, nz, nz, z.data()});
        fn.cell({z.data(), s.n_cell, s.n_cell, s.cifg, s.peep_i, s.peep_f, s.peep_o,
                 s.cell_clip, s.act, c, s.proj_t ? hc.data() : h});
        if (s.proj_t) {
          fn.gemv({s.proj_bias, hc.data(), s.n_cell, s.proj_t, s.n_output, s.n_output, h});
          if (s.proj_clip > 0.0f)
            for (int64_t j = 0; j < s.n_output; ++j)
              h[j] = h[j] < -s.proj_clip ? -s.proj_clip : (h[j] > s.proj_clip ? s.proj_clip : h[j]);
        }
        std::memcpy(s.out + row * s.n_output, h, sizeof(float) * s.n_output);
      }
    }
  });
}

void rnn_sequence_f32(const RnnSeq& s, int threads) {
  const Fns fn = pick();
  const int64_t n = s.units;
  parallel_range(threads, s.batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      float* h = s.h + b * n;
      for (int64_t t = 0; t < s.steps; ++t) {
        const int64_t row = s.time_major ? t * s.batch + b : b * s.steps + t;
        float* o = s.out + row * n;
        fn.gemv({s.xw + row * n, h, n, s.wh_t, n, n, o});
        fn.act(o, n, s.act);
        std::memcpy(h, o, sizeof(float) * n);
      }
    }
  });
}

}  // namespace onert_neon
