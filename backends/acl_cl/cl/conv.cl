// Convolution as an implicit GEMM (no im2col buffer): each work item computes 4 output
// pixels x 8 output channels, reading a [K][CoutPad] weight matrix as float8 rows.
// Fully connected layers run as 1x1 convolutions over a 1 x M image.

#define PIX 4

__kernel void conv_gemm(__global const float *x, __global const float *wt,
                        __global const float *bias, __global float *y,
                        int H, int W, int Cin, int OH, int OW, int Cout, int CoutPad,
                        int KH, int KW, int sh, int sw, int dh, int dw, int pt, int pl,
                        int M, float lo, float hi) {
  int cb = get_global_id(0);
  int m0 = get_global_id(1) * PIX;
  if (cb * 8 >= Cout || m0 >= M) return;
  int ih0[PIX], iw0[PIX], nb[PIX];
  for (int p = 0; p < PIX; ++p) {
    int m = min(m0 + p, M - 1);
    int ow = m % OW, t = m / OW;
    int oh = t % OH, n = t / OH;
    ih0[p] = oh * sh - pt;
    iw0[p] = ow * sw - pl;
    nb[p] = n * H;
  }
  float8 acc[PIX];
  for (int p = 0; p < PIX; ++p) acc[p] = (float8)(0.0f);
  __global const float *wrow = wt + cb * 8;
  for (int kh = 0; kh < KH; ++kh) {
    for (int kw = 0; kw < KW; ++kw) {
      int off[PIX];
      for (int p = 0; p < PIX; ++p) {
        int ih = ih0[p] + kh * dh, iw = iw0[p] + kw * dw;
        off[p] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? ((nb[p] + ih) * W + iw) * Cin : -1;
      }
      __global const float *wk = wrow + (kh * KW + kw) * Cin * CoutPad;
      if (off[0] >= 0 && off[1] >= 0 && off[2] >= 0 && off[3] >= 0) {
        __global const float *x0 = x + off[0], *x1 = x + off[1], *x2 = x + off[2], *x3 = x + off[3];
        for (int ci = 0; ci < Cin; ++ci) {
          float8 w8 = vload8(0, wk + ci * CoutPad);
          acc[0] += x0[ci] * w8;
          acc[1] += x1[ci] * w8;
          acc[2] += x2[ci] * w8;
          acc[3] += x3[ci] * w8;
        }
      } else {
        for (int ci = 0; ci < Cin; ++ci) {
          float8 w8 = vload8(0, wk + ci * CoutPad);
          for (int p = 0; p < PIX; ++p)
            if (off[p] >= 0) acc[p] += x[off[p] + ci] * w8;
        }
      }
    }
  }
  float8 b8 = vload8(0, bias + cb * 8);
  for (int p = 0; p < PIX; ++p) {
    if (m0 + p >= M) break;
    float8 v = clamp(acc[p] + b8, lo, hi);
    __global float *dst = y + (m0 + p) * Cout + cb * 8;
    if (cb * 8 + 8 <= Cout) {
      vstore8(v, 0, dst);
    } else {
      float tmp[8];
      vstore8(v, 0, tmp);
      for (int j = 0; j < Cout - cb * 8; ++j) dst[j] = tmp[j];
    }
  }
}

__kernel void depthwise(__global const float *x, __global const float *w,
                        __global const float *bias, __global float *y,
                        int H, int W, int Cin, int OH, int OW, int Cout, int mult,
                        int KH, int KW, int sh, int sw, int dh, int dw, int pt, int pl,
                        float lo, float hi) {
  int c = get_global_id(0), ow = get_global_id(1), t = get_global_id(2);
  if (c >= Cout || ow >= OW) return;
  int oh = t % OH, n = t / OH;
  int ci = c / mult;
  float acc = bias[c];
  for (int kh = 0; kh < KH; ++kh) {
    int ih = oh * sh - pt + kh * dh;
    if (ih < 0 || ih >= H) continue;
    for (int kw = 0; kw < KW; ++kw) {
      int iw = ow * sw - pl + kw * dw;
      if (iw < 0 || iw >= W) continue;
      acc += x[((n * H + ih) * W + iw) * Cin + ci] * w[(kh * KW + kw) * Cout + c];
    }
  }
  y[(t * OW + ow) * Cout + c] = clamp(acc, lo, hi);
}

// kind: 0 average, 1 max, 2 L2
__kernel void pool2d(__global const float *x, __global float *y, int H, int W, int C,
                     int OH, int OW, int KH, int KW, int sh, int sw, int pt, int pl, int kind,
                     float lo, float hi) {
  int c = get_global_id(0), ow = get_global_id(1), t = get_global_id(2);
  if (c >= C || ow >= OW) return;
  int oh = t % OH, n = t / OH;
  float acc = kind == 1 ? -INFINITY : 0.0f;
  int count = 0;
  for (int kh = 0; kh < KH; ++kh) {
    int ih = oh * sh - pt + kh;
    if (ih < 0 || ih >= H) continue;
    for (int kw = 0; kw < KW; ++kw) {
      int iw = ow * sw - pl + kw;
      if (iw < 0 || iw >= W) continue;
      float v = x[((n * H + ih) * W + iw) * C + c];
      acc = kind == 1 ? fmax(acc, v) : (kind == 2 ? acc + v * v : acc + v);
      ++count;
    }
  }
  if (kind == 0) acc /= (float)max(count, 1);
  if (kind == 2) acc = sqrt(acc / (float)max(count, 1));
  y[(t * OW + ow) * C + c] = clamp(acc, lo, hi);
}

// y[b] = A[b] (rows x inner) . B[b] (inner x cols); element strides given per matrix, batch
// offsets from tables (broadcast batches repeat an offset).
__kernel void batch_matmul(__global const float *a, __global const float *b, __global float *y,
                           __global const int *aoff, __global const int *boff,
                           int rows, int cols, int inner, int a_si, int a_sk, int b_sk,
                           int b_sj) {
  int j = get_global_id(0), i = get_global_id(1), bt = get_global_id(2);
  if (j >= cols || i >= rows) return;
  __global const float *pa = a + aoff[bt] + i * a_si;
  __global const float *pb = b + boff[bt] + j * b_sj;
  float acc = 0.0f;
  for (int k = 0; k < inner; ++k) acc += pa[k * a_sk] * pb[k * b_sk];
  y[(bt * rows + i) * cols + j] = acc;
}
