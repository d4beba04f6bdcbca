// Tests of the recurrent group against scalar references written here: odd sizes (vector tails),
// threads 1 and 2; test_main runs them at every ISA level.
#include <cmath>
#include <cstdint>
#include <vector>

#include "recurrent.h"
#include "testing.h"

using namespace onert_neon;

namespace {

std::vector<float> rnd(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

double ref_act(double x, int act) {
  switch (act) {
    case kActRelu: return x > 0 ? x : 0;
    case kActRelu6: return x < 0 ? 0 : (x > 6 ? 6 : x);
    case kActReluN1To1: return x < -1 ? -1 : (x > 1 ? 1 : x);
    case kActTanh: return std::tanh(x);
    case kActSigmoid: return 1.0 / (1.0 + std::exp(-x));
    default: return x;
  }
}

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

NEON_TEST(recurrent_activations_match_libm) {
  for (int act : {kActNone, kActRelu, kActRelu6, kActReluN1To1, kActTanh, kActSigmoid}) {
    for (int64_t n : {1, 7, 33, 1000}) {
      std::vector<float> x = rnd(n, static_cast<uint32_t>(n + act), 12.0f);
      x[0] = 1e-5f;
      if (n > 3) { x[1] = -95.0f; x[2] = 95.0f; x[3] = -0.01f; }
      std::vector<float> y = x;
      rec_act(y.data(), n, act);
      for (int64_t i = 0; i < n; ++i) {
        const double want = ref_act(x[i], act);
        CHECK(std::fabs(y[i] - want) <= 3e-7 + 3e-7 * std::fabs(want));
      }
    }
  }
}

NEON_TEST(recurrent_gemv_odd_sizes) {
  for (int64_t K : {1, 5, 130}) {
    for (int64_t n : {1, 3, 17, 64, 200, 515}) {
      const int64_t ldw = n + 3;
      std::vector<float> h = rnd(K, 1), w = rnd(K * ldw, 2), init = rnd(n, 3), z(n);
      for (bool with_init : {false, true}) {
        rec_gemv({with_init ? init.data() : nullptr, h.data(), K, w.data(), ldw, n, z.data()});
        for (int64_t j = 0; j < n; ++j) {
          double want = with_init ? init[j] : 0.0;
          for (int64_t k = 0; k < K; ++k) want += double(h[k]) * w[k * ldw + j];
          CHECK_NEAR(z[j], want, 1e-5);
        }
      }
    }
  }
}

namespace {

// the scalar reference LSTM over one batch row (TFLite's float semantics)
void ref_lstm_row(const LstmSeq& s, int64_t b, std::vector<double>& h, std::vector<double>& c,
                  std::vector<double>& out) {
  const int64_t nc = s.n_cell, no = s.n_output, G = s.cifg ? 3 : 4, nz = G * nc;
  for (int64_t t = 0; t < s.steps; ++t) {
    const int64_t row = s.time_major ? t * s.batch + b : b * s.steps + t;
    std::vector<double> z(nz), hc(nc);
    for (int64_t j = 0; j < nz; ++j) {
      z[j] = s.xw[row * nz + j];
      for (int64_t k = 0; k < no; ++k) z[j] += h[k] * s.wh_t[k * nz + j];
    }
    const int64_t fo = s.cifg ? 0 : nc;
    for (int64_t u = 0; u < nc; ++u) {
      const double f = sig(z[fo + u] + (s.peep_f ? c[u] * s.peep_f[u] : 0.0));
      const double i = s.cifg ? 1.0 - f : sig(z[u] + (s.peep_i ? c[u] * s.peep_i[u] : 0.0));
      const double g = ref_act(z[fo + nc + u], s.act);
      c[u] = f * c[u] + i * g;
      if (s.cell_clip > 0) c[u] = std::fmax(-s.cell_clip, std::fmin(s.cell_clip, c[u]));
      const double o = sig(z[fo + 2 * nc + u] + (s.peep_o ? c[u] * s.peep_o[u] : 0.0));
      hc[u] = o * (s.act == kActNone ? g : ref_act(c[u], s.act));
    }
    for (int64_t j = 0; j < no; ++j) {
      double v = hc.size() > size_t(j) && !s.proj_t ? hc[j] : 0.0;
      if (s.proj_t) {
        v = s.proj_bias ? s.proj_bias[j] : 0.0;
        for (int64_t k = 0; k < nc; ++k) v += hc[k] * s.proj_t[k * no + j];
        if (s.proj_clip > 0) v = std::fmax(-s.proj_clip, std::fmin(s.proj_clip, v));
      }
      h[j] = v;
      out[row * no + j] = v;
    }
  }
}

}  // namespace

NEON_TEST(recurrent_lstm_sequence_variants) {
  struct Case { bool cifg, peep, proj, pbias, tm; int act; float cclip, pclip; int64_t nc, no; };
  const Case cases[] = {
      {false, false, false, false, true, kActTanh, 0.0f, 0.0f, 19, 19},
      {true, true, false, false, false, kActTanh, 0.4f, 0.0f, 5, 5},
      {false, true, true, true, true, kActRelu, 0.0f, 0.3f, 37, 11},
      {false, false, true, false, false, kActNone, 0.0f, 0.0f, 8, 3},
      {true, false, false, false, true, kActRelu6, 2.0f, 0.0f, 70, 70},
  };
  for (const Case& k : cases) {
    for (int threads : {1, 2}) {
      const int64_t steps = 4, batch = 3, G = k.cifg ? 3 : 4, nz = G * k.nc;
      auto xw = rnd(steps * batch * nz, 5, 2.0f), wh = rnd(k.no * nz, 6, 0.5f);
      auto pi = rnd(k.nc, 7), pf = rnd(k.nc, 8), po = rnd(k.nc, 9);
      auto proj = rnd(k.nc * k.no, 10, 0.6f), pb = rnd(k.no, 11);
      auto h = rnd(batch * k.no, 12), c = rnd(batch * k.nc, 13);
      std::vector<float> out(steps * batch * k.no);
      LstmSeq s{steps, batch, k.nc, k.no, k.cifg, k.tm, xw.data(), wh.data(),
                k.peep && !k.cifg ? pi.data() : nullptr, k.peep ? pf.data() : nullptr,
                k.peep ? po.data() : nullptr, k.proj ? proj.data() : nullptr,
                k.pbias ? pb.data() : nullptr, k.cclip, k.pclip, k.act, nullptr, nullptr,
                out.data()};
      std::vector<double> rout(out.size());
      std::vector<std::vector<double>> rh(batch), rc(batch);
      for (int64_t b = 0; b < batch; ++b) {
        rh[b].assign(h.begin() + b * k.no, h.begin() + (b + 1) * k.no);
        rc[b].assign(c.begin() + b * k.nc, c.begin() + (b + 1) * k.nc);
        ref_lstm_row(s, b, rh[b], rc[b], rout);
      }
      s.h = h.data();
      s.c = c.data();
      lstm_sequence_f32(s, threads);
      for (size_t i = 0; i < out.size(); ++i) CHECK_NEAR(out[i], rout[i], 2e-5);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t j = 0; j < k.no; ++j) CHECK_NEAR(h[b * k.no + j], rh[b][j], 2e-5);
        for (int64_t j = 0; j < k.nc; ++j) CHECK_NEAR(c[b * k.nc + j], rc[b][j], 2e-5);
      }
    }
  }
}

NEON_TEST(recurrent_rnn_sequence) {
  for (int act : {kActTanh, kActRelu, kActNone, kActReluN1To1}) {
    for (bool tm : {false, true}) {
      for (int threads : {1, 2}) {
        const int64_t steps = 5, batch = 3, n = 21;
        auto xw = rnd(steps * batch * n, 20), wh = rnd(n * n, 21, 0.3f), h = rnd(batch * n, 22);
        std::vector<float> out(steps * batch * n);
        std::vector<double> rh(h.begin(), h.end()), rout(out.size());
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t t = 0; t < steps; ++t) {
            const int64_t row = tm ? t * batch + b : b * steps + t;
            std::vector<double> nh(n);
            for (int64_t j = 0; j < n; ++j) {
              double v = xw[row * n + j];
              for (int64_t k = 0; k < n; ++k) v += rh[b * n + k] * wh[k * n + j];
              nh[j] = ref_act(v, act);
            }
            for (int64_t j = 0; j < n; ++j) rout[row * n + j] = rh[b * n + j] = nh[j];
          }
        RnnSeq s{steps, batch, n, tm, xw.data(), wh.data(), act, h.data(), out.data()};
        rnn_sequence_f32(s, threads);
        for (size_t i = 0; i < out.size(); ++i) CHECK_NEAR(out[i], rout[i], 2e-5);
        for (size_t i = 0; i < h.size(); ++i) CHECK_NEAR(h[i], rh[i], 2e-5);
      }
    }
  }
}
