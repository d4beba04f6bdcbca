// Float32 recurrent cells of acl_neon (module _recurrent): the time loops of LSTM / RNN after the
// input projection. The caller computes xw = x * Wx^T + bias for every time step at once (one
// packed GEMM of the gemm group); these kernels then walk the steps: z = xw[t] + W_h^T h, the
// gate math fused in one pass (sigmoid / tanh / cell update / clip), an optional projection.
//
// Weights are given transposed (`k` rows of `n` floats): z[j] += sum_k h[k] * w[k * n + j], so
// every step is a broadcast-FMA sweep over contiguous rows (vectorised along the gates).
// Batch rows are independent through the whole sequence: threads split the batch.
#pragma once

#include <cstdint>

namespace onert_neon {

// Activations of the recurrent kernels (TFLite's fused activation; Sigmoid for the gates).
enum RecAct : int { kActNone = 0, kActRelu = 1, kActRelu6 = 2, kActReluN1To1 = 3,
                    kActTanh = 4, kActSigmoid = 5 };

// z[0:n] = (init ? init : 0) + sum_{k < K} h[k] * w[k * ldw + j]   (j < n)
struct GemvArgs {
  const float* init;
  const float* h;
  int64_t K;
  const float* w;
  int64_t ldw;
  int64_t n;
  float* z;
};

// One LSTM step for `n` units: z holds the gate pre-activations (i, f, g, o; without i under
// CIFG) `n_cell` apart; peepholes (n floats each, null when absent; peep_i null under CIFG).
// c (in/out) the cell state; h_out[u] = o * act(c) (o * g for act None, as TFLite does).
struct CellArgs {
  const float* z;
  int64_t n_cell, n;
  bool cifg;
  const float* peep_i;
  const float* peep_f;
  const float* peep_o;
  float cell_clip;    // > 0: clip c to +-cell_clip
  int act;            // RecAct of the cell gate and the output
  float* c;
  float* h_out;
};

void gemv_base(const GemvArgs& a);
void cell_base(const CellArgs& a);
void act_base(float* x, int64_t n, int act);
#if defined(__x86_64__)
void gemv_avx2(const GemvArgs& a);
void cell_avx2(const CellArgs& a);
void act_avx2(float* x, int64_t n, int act);
void gemv_avx512(const GemvArgs& a);
void cell_avx512(const CellArgs& a);
void act_avx512(float* x, int64_t n, int act);
#endif

// Dispatched on active_isa().
void rec_gemv(const GemvArgs& a);
void rec_cell(const CellArgs& a);
void rec_act(float* x, int64_t n, int act);

// A whole LSTM sequence. xw/out rows are indexed by (t, b): t * batch + b when time_major,
// else b * steps + t. `h` (batch x n_output) and `c` (batch x n_cell) are updated in place.
struct LstmSeq {
  int64_t steps, batch, n_cell, n_output;
  bool cifg, time_major;
  const float* xw;          // rows of G * n_cell (G = 3 under CIFG, else 4), bias included
  const float* wh_t;        // n_output rows of G * n_cell
  const float* peep_i;      // n_cell floats each or null
  const float* peep_f;
  const float* peep_o;
  const float* proj_t;      // n_cell rows of n_output, or null (then n_output == n_cell)
  const float* proj_bias;   // n_output or null
  float cell_clip, proj_clip;
  int act;
  float* h;
  float* c;
  float* out;               // rows of n_output
};
void lstm_sequence_f32(const LstmSeq& s, int threads);

// A whole basic-RNN sequence: h = act(xw[t] + Wh^T h), rows indexed as for LstmSeq.
struct RnnSeq {
  int64_t steps, batch, units;
  bool time_major;
  const float* xw;          // rows of `units`, bias included
  const float* wh_t;        // units rows of units (transposed recurrent weights)
  int act;
  float* h;                 // batch x units, in/out
  float* out;               // rows of units
};
void rnn_sequence_f32(const RnnSeq& s, int threads);

}  // namespace onert_neon
