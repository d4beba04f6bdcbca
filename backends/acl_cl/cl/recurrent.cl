// Recurrent cells (float32), one time step per launch sequence; TFLite's lstm_eval semantics
// (see backends/cpu/ops/rnn_cell.py). Weights are packed on the host with 4 gates (i, f, g, o;
// i all zero under CIFG), rows of length n_input / n_rec. Activation codes: 0 NONE, 1 RELU,
// 2 RELU6, 3 RELU_N1_TO_1, 4 TANH.

inline float act(float v, int code) {
  switch (code) {
    case 1: return fmax(v, 0.0f);
    case 2: return fmin(fmax(v, 0.0f), 6.0f);
    case 3: return fmin(fmax(v, -1.0f), 1.0f);
    case 4: return tanh(v);
    default: return v;
  }
}

inline float sigm(float v) { return 1.0f / (1.0f + exp(-v)); }

// gates[b, r] = wx[r] . x[b] + (wh[r] . h[b] | wh[r] * h[b, r % nc] if diagonal)
//               [+ bias[r] without layer norm] [+ peep[r] * c[b, n] for gates i, f]
// work-item (b, r), r < 4 * nc. x row b of this step at x + xoff + b * xb.
__kernel void lstm_gates(__global const float *x, int xoff, int xb, __global const float *h,
                         __global const float *c, __global const float *wx,
                         __global const float *wh, __global const float *bias,
                         __global const float *peep, __global float *gates, int ni, int no,
                         int nc, int diagonal, int has_ln, int has_peep, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int g4 = 4 * nc;
  int b = i / g4, r = i % g4;
  int k = r / nc, cell = r % nc;
  __global const float *xr = x + xoff + b * xb;
  __global const float *w = wx + r * ni;
  float z = 0.0f;
  for (int j = 0; j < ni; ++j) z += w[j] * xr[j];
  if (diagonal) {
    z += wh[r] * h[b * no + cell];
  } else {
    __global const float *u = wh + r * no;
    __global const float *hr = h + b * no;
    for (int j = 0; j < no; ++j) z += u[j] * hr[j];
  }
  if (!has_ln) z += bias[r];
  if (has_peep && k < 2) z += peep[k * nc + cell] * c[b * nc + cell];
  gates[i] = z;
}

// Normalize gate k of row g (nc values) in place, then * ln[k] + bias[k].
inline void layer_norm(__global float *g, __global const float *ln, __global const float *bias,
                       int nc) {
  float mean = 0.0f;
  for (int j = 0; j < nc; ++j) mean += g[j];
  mean /= (float)nc;
  float var = 0.0f;
  for (int j = 0; j < nc; ++j) {
    float d = g[j] - mean;
    var += d * d;
  }
  var /= (float)nc;
  float inv = 1.0f / sqrt(var + 1e-8f);
  for (int j = 0; j < nc; ++j) g[j] = (g[j] - mean) * inv * ln[j] + bias[j];
}

// One batch row per work-item: the cell update. c is updated in place; the output (before
// projection) goes to m[b] (m == h and y without projection: h state and y at yoff + b * yb).
__kernel void lstm_cell(__global float *gates, __global float *c, __global const float *ln,
                        __global const float *bias, __global const float *peep,
                        __global float *m, int mb, __global float *y, int yoff, int yb,
                        int nc, int cifg, int has_ln, int has_peep, int code, float cell_clip,
                        int to_y, int batch) {
  int b = get_global_id(0);
  if (b >= batch) return;
  __global float *g = gates + b * 4 * nc;
  __global float *cr = c + b * nc;
  if (has_ln) {
    for (int k = cifg ? 1 : 0; k < 3; ++k) layer_norm(g + k * nc, ln + k * nc, bias + k * nc, nc);
  }
  for (int j = 0; j < nc; ++j) {
    float f = sigm(g[nc + j]);
    float in = cifg ? 1.0f - f : sigm(g[j]);
    float gg = act(g[2 * nc + j], code);
    float cv = f * cr[j] + in * gg;
    if (cell_clip > 0.0f) cv = fmin(fmax(cv, -cell_clip), cell_clip);
    cr[j] = cv;
    g[2 * nc + j] = gg;
    if (has_peep) g[3 * nc + j] += peep[2 * nc + j] * cv;
  }
  if (has_ln) layer_norm(g + 3 * nc, ln + 3 * nc, bias + 3 * nc, nc);
  for (int j = 0; j < nc; ++j) {
    float o = sigm(g[3 * nc + j]);
    // activation NONE: TFLite's output is o * g (its scratch still holds the cell gate)
    float v = o * (code == 0 ? g[2 * nc + j] : act(cr[j], code));
    m[b * mb + j] = v;
    if (to_y) y[yoff + b * yb + j] = v;
  }
}

// Projection, work-item (b, k): h[b, k] = proj[k] . m[b] + pbias[k], clipped; also y.
__kernel void lstm_project(__global const float *m, __global const float *proj,
                           __global const float *pbias, int has_pbias, float proj_clip,
                           __global float *h, __global float *y, int yoff, int yb, int nc,
                           int no, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int b = i / no, k = i % no;
  __global const float *w = proj + k * nc;
  __global const float *mr = m + b * nc;
  float v = has_pbias ? pbias[k] : 0.0f;
  for (int j = 0; j < nc; ++j) v += w[j] * mr[j];
  if (proj_clip > 0.0f) v = fmin(fmax(v, -proj_clip), proj_clip);
  h[b * no + k] = v;
  y[yoff + b * yb + k] = v;
}

// Basic RNN step, work-item (b, u): hout[b, u] = act(wx[u] . x[b] + wh[u] . hin[b] + bias[u]),
// also written to y. hin and hout differ (ping-pong buffers).
__kernel void rnn_step(__global const float *x, int xoff, int xb, __global const float *hin,
                       __global float *hout, __global const float *wx, __global const float *wh,
                       __global const float *bias, __global float *y, int yoff, int yb,
                       int ni, int units, int code, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int b = i / units, u = i % units;
  __global const float *xr = x + xoff + b * xb;
  __global const float *w = wx + u * ni;
  float z = bias[u];
  for (int j = 0; j < ni; ++j) z += w[j] * xr[j];
  __global const float *v = wh + u * units;
  __global const float *hr = hin + b * units;
  for (int j = 0; j < units; ++j) z += v[j] * hr[j];
  z = act(z, code);
  hout[i] = z;
  y[yoff + b * yb + u] = z;
}
