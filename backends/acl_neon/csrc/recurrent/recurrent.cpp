// Baseline (SSE2 on x86-64, NEON on aarch64, portable C++ elsewhere) bodies of the recurrent
// kernels, the dispatch on active_isa() and the LSTM / RNN time loops.
#include "recurrent.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "isa.h"
#include "parallel.h"
#include "simd_base.h"
#include "simd_math.h"

namespace onert_neon {
namespace {

using namespace simd;

#include "recurrent_kernels.inc"

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
