// Normalizations, ResizeBilinear and TransposeConv (float32, NHWC).

// y = x / max(sqrt(sum(x^2)), 1e-6) per row of `cols`, then the fused clamp.
__kernel void l2norm_rows(__global const float *x, __global float *y, int cols, float lo,
                          float hi, int rows) {
  int r = get_global_id(0);
  if (r >= rows) return;
  __global const float *p = x + r * cols;
  float s = 0.0f;
  for (int j = 0; j < cols; ++j) s += p[j] * p[j];
  float inv = 1.0f / fmax(sqrt(s), 1e-6f);
  for (int j = 0; j < cols; ++j) y[r * cols + j] = clamp(p[j] * inv, lo, hi);
}

// y = x * (bias + alpha * sum of x^2 over channels c-radius..c+radius) ^ -beta.
__kernel void lrn(__global const float *x, __global float *y, int C, int radius, float bias,
                  float alpha, float beta, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int c = i % C, base = i - c;
  float s = 0.0f;
  for (int k = max(c - radius, 0); k <= min(c + radius, C - 1); ++k) {
    float v = x[base + k];
    s += v * v;
  }
  y[i] = x[i] * pow(bias + alpha * s, -beta);
}

// Per batch n and channel c over the S spatial positions of [N, S, C]. gamma/beta hold 1 or C
// values (gstep/bstep 0 or 1; a missing one is passed as a single 1 or 0).
__kernel void instance_norm(__global const float *x, __global float *y,
                            __global const float *gamma, __global const float *beta, int S,
                            int C, int gstep, int bstep, float eps, float lo, float hi, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int c = i % C, b = i / C;
  __global const float *p = x + b * S * C + c;
  float mean = 0.0f;
  for (int s = 0; s < S; ++s) mean += p[s * C];
  mean /= (float)S;
  float var = 0.0f;
  for (int s = 0; s < S; ++s) {
    float d = p[s * C] - mean;
    var += d * d;
  }
  var /= (float)S;
  float a = gamma[c * gstep] / sqrt(var + eps), o = beta[c * bstep];
  for (int s = 0; s < S; ++s) y[(b * S + s) * C + c] = clamp((p[s * C] - mean) * a + o, lo, hi);
}

// (n, h, w, c) of element i of an [N, H, W, C] tensor.
inline int4 nhwc_of(int i, int H, int W, int C) {
  int c = i % C, t = i / C;
  int w = t % W;
  t /= W;
  return (int4)(t / H, t % H, w, c);
}

// Source rows/columns (lower, upper, fraction) come from host tables: TFLite's coordinates.
__kernel void resize_bilinear(__global const float *x, __global float *y,
                              __global const int *y0, __global const int *y1,
                              __global const float *dy, __global const int *x0,
                              __global const int *x1, __global const float *dx, int H, int W,
                              int C, int OH, int OW, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int4 at = nhwc_of(i, OH, OW, C);
  int b = at.s0, oh = at.s1, ow = at.s2, c = at.s3;
  __global const float *img = x + b * H * W * C + c;
  float fy = dy[oh], fx = dx[ow];
  float tl = img[(y0[oh] * W + x0[ow]) * C], tr = img[(y0[oh] * W + x1[ow]) * C];
  float bl = img[(y1[oh] * W + x0[ow]) * C], br = img[(y1[oh] * W + x1[ow]) * C];
  float left = tl + (bl - tl) * fy, right = tr + (br - tr) * fy;
  y[i] = left + (right - left) * fx;
}

// out[n, oy, ox, co] = bias[co] + sum x[n, iy, ix, ci] * w[co, ky, kx, ci] over the taps with
// oy + top = iy * sh + ky and ox + left = ix * sw + kx.
__kernel void transpose_conv(__global const float *x, __global const float *w,
                             __global const float *bias, __global float *y, int H, int W,
                             int Cin, int OH, int OW, int Cout, int KH, int KW, int sh, int sw,
                             int top, int left, float lo, float hi, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int4 at = nhwc_of(i, OH, OW, Cout);
  int b = at.s0, oy = at.s1, ox = at.s2, co = at.s3;
  float acc = bias[co];
  for (int ky = 0; ky < KH; ++ky) {
    int ty = oy + top - ky;
    if (ty < 0 || ty % sh) continue;
    int iy = ty / sh;
    if (iy >= H) continue;
    for (int kx = 0; kx < KW; ++kx) {
      int tx = ox + left - kx;
      if (tx < 0 || tx % sw) continue;
      int ix = tx / sw;
      if (ix >= W) continue;
      __global const float *px = x + ((b * H + iy) * W + ix) * Cin;
      __global const float *pw = w + ((co * KH + ky) * KW + kx) * Cin;
      for (int ci = 0; ci < Cin; ++ci) acc += px[ci] * pw[ci];
    }
  }
  y[i] = clamp(acc, lo, hi);
}
