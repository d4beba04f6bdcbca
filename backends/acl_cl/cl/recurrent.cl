// Recurrent cells (float32), one time step per launch sequence; TFLite's lstm_eval semantics
// (see backends/cpu/ops/rnn_cell.py). Weights are packed on the host with 4 gates (i, f, g, o;
// i all zero under CIFG), rows of length n_input / n_rec. Activation codes: 0 NONE, 1 RELU,
// 2 RELU6, 3 RELU_N1_TO_1, 4 TANH.

// act/sigm on float, act8/sigm8 on float8: one body for both widths
#define DEFINE_ACTIVATIONS(T, ACT, SIGM)             \
  inline T ACT(T v, int code) {                      \
    switch (code) {                                  \
      case 1: return fmax(v, 0.0f);                  \
      case 2: return fmin(fmax(v, 0.0f), 6.0f);      \
      case 3: return fmin(fmax(v, -1.0f), 1.0f);     \
      case 4: return tanh(v);                        \
      default: return v;                             \
    }                                                \
  }                                                  \
  inline T SIGM(T v) { return 1.0f / (1.0f + exp(-v)); }

DEFINE_ACTIVATIONS(float, act, sigm)
DEFINE_ACTIVATIONS(float8, act8, sigm8)

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

// 8 lanes of a vector from p[0..n) (0 past n), and back.
inline float8 load8(__global const float *p, int n) {
  if (n >= 8) return vload8(0, p);
  float t[8];
  for (int i = 0; i < 8; ++i) t[i] = i < n ? p[i] : 0.0f;
  return vload8(0, t);
}

inline void store8(float8 v, __global float *p, int n) {
  if (n >= 8) {
    vstore8(v, 0, p);
    return;
  }
  float t[8];
  vstore8(v, 0, t);
  for (int i = 0; i < n; ++i) p[i] = t[i];
}

// z0..z3 (the 4 gates' 8 lanes) += the 4 gate rows of w (ncp apart) times v.
#define MAC4(w, v)                              \
  do {                                          \
    z0 += vload8(0, (w)) * (v);                 \
    z1 += vload8(0, (w) + ncp) * (v);           \
    z2 += vload8(0, (w) + 2 * ncp) * (v);       \
    z3 += vload8(0, (w) + 3 * ncp) * (v);       \
  } while (0)

// The whole LSTM sequence in one launch (no layer norm): work-group b runs batch row b, its
// work item t the 8 cells j0 = 8t.. (gates, c and h update) and, with projection, the outputs
// k0 = 8t.. of h. Weights transposed, each gate's block padded to ncp (a multiple of 8) lanes:
// wxt [ni][4 * ncp], wht [no][4 * ncp] (diagonal: [4 * ncp]), bias [4 * ncp], peep [3 * ncp],
// projt [nc][nop]. Barriers (unconditional: PoCL 3.1 ran one inside a uniform `if` wrongly)
// separate reading h from writing it. Per lane the arithmetic of lstm_gates, lstm_cell and
// lstm_project. Global (batch * L), local (L), 8 * L >= max(ncp, nop).
__kernel void lstm_seq(__global const float *x, int steps, int xt, int xb, __global float *h,
                       __global float *c, __global const float *wxt, __global const float *wht,
                       __global const float *bias, __global const float *peep,
                       __global float *m, __global const float *projt,
                       __global const float *pbias, int proj_on, int has_pbias,
                       float proj_clip, __global float *y, int yt, int yb, int ni, int no,
                       int nc, int ncp, int nop, int cifg, int diagonal, int has_peep, int code,
                       float cell_clip) {
  int b = get_group_id(0), j0 = get_local_id(0) * 8;
  int g4 = 4 * ncp, nj = nc - j0, nk = no - j0;
  __global float *hb = h + b * no;
  __global float *cb = c + b * nc;
  __global float *mb = m + b * nc;
  for (int s = 0; s < steps; ++s) {
    __global const float *xr = x + s * xt + b * xb;
    float8 z0 = 0.0f, z1 = 0.0f, z2 = 0.0f, z3 = 0.0f, cold = 0.0f;
    if (nj > 0) {
      for (int q = 0; q < ni; ++q) {
        __global const float *w = wxt + q * g4 + j0;
        float v = xr[q];
        MAC4(w, v);
      }
      if (diagonal) {
        float8 v = load8(hb + j0, nj);
        MAC4(wht + j0, v);
      } else {
        for (int q = 0; q < no; ++q) {
          __global const float *w = wht + q * g4 + j0;
          float v = hb[q];
          MAC4(w, v);
        }
      }
      z0 += vload8(0, bias + j0);
      z1 += vload8(0, bias + ncp + j0);
      z2 += vload8(0, bias + 2 * ncp + j0);
      z3 += vload8(0, bias + 3 * ncp + j0);
      cold = load8(cb + j0, nj);
      if (has_peep) {
        z0 += vload8(0, peep + j0) * cold;
        z1 += vload8(0, peep + ncp + j0) * cold;
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (nj > 0) {
      float8 f = sigm8(z1);
      float8 in = cifg ? 1.0f - f : sigm8(z0);
      float8 gg = act8(z2, code);
      float8 cv = f * cold + in * gg;
      if (cell_clip > 0.0f) cv = fmin(fmax(cv, -cell_clip), cell_clip);
      store8(cv, cb + j0, nj);
      if (has_peep) z3 += vload8(0, peep + 2 * ncp + j0) * cv;
      float8 v = sigm8(z3) * (code == 0 ? gg : act8(cv, code));
      if (proj_on) {
        store8(v, mb + j0, nj);
      } else {
        store8(v, hb + j0, nj);
        store8(v, y + s * yt + b * yb + j0, nj);
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (proj_on && nk > 0) {
      float8 v = has_pbias ? vload8(0, pbias + j0) : (float8)(0.0f);
      for (int q = 0; q < nc; ++q) v += vload8(0, projt + q * nop + j0) * mb[q];
      if (proj_clip > 0.0f) v = fmin(fmax(v, -proj_clip), proj_clip);
      store8(v, hb + j0, nk);
      store8(v, y + s * yt + b * yb + j0, nk);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

// A basic RNN over the whole sequence in one launch: work-group b runs batch row b, its work
// item t the 8 units u0 = 8t.. (per lane rnn_step's arithmetic); weights transposed and padded
// to up (a multiple of 8) lanes: wxt [ni][up], wht [units][up], bias [up]. Global
// (batch * L), local (L), 8 * L >= up.
__kernel void rnn_seq(__global const float *x, int steps, int xt, int xb, __global float *h,
                      __global const float *wxt, __global const float *wht,
                      __global const float *bias, __global float *y, int yt, int yb, int ni,
                      int units, int up, int code) {
  int b = get_group_id(0), u0 = get_local_id(0) * 8, nu = units - u0;
  __global float *hb = h + b * units;
  for (int s = 0; s < steps; ++s) {
    __global const float *xr = x + s * xt + b * xb;
    float8 z = 0.0f;
    if (nu > 0) {
      z = vload8(0, bias + u0);
      for (int q = 0; q < ni; ++q) z += vload8(0, wxt + q * up + u0) * xr[q];
      for (int q = 0; q < units; ++q) z += vload8(0, wht + q * up + u0) * hb[q];
      z = act8(z, code);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (nu > 0) {
      store8(z, hb + u0, nu);
      store8(z, y + s * yt + b * yb + u0, nu);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}
