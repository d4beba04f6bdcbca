// Convolution as an implicit GEMM (no im2col buffer): each work item computes PIX output
// pixels x VW output channels (build options -DPIX=1..16, -DVW=8 or 16; ops/conv.py picks
// them per layer), reading a [K][CoutPad] weight matrix (CoutPad a multiple of VW) as rows of
// VW floats. Fully connected layers run as 1x1 convolutions over a 1 x M image.
// Global (CoutPad / VW, ceil(M / PIX)). Without options: 4 pixels x 8 channels.
#ifndef PIX
#define PIX 4
#endif
#ifndef VW
#define VW 8
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FV CAT(float, VW)

__kernel void conv_gemm(__global const float *x, __global const float *wt,
                        __global const float *bias, __global float *y,
                        int H, int W, int Cin, int OH, int OW, int Cout, int CoutPad,
                        int KH, int KW, int sh, int sw, int dh, int dw, int pt, int pl,
                        int M, float lo, float hi) {
  int c0 = get_global_id(0) * VW;
  int m0 = get_global_id(1) * PIX;
  if (c0 >= Cout || m0 >= M) return;
  int ih0[PIX], iw0[PIX], nb[PIX];
  for (int p = 0; p < PIX; ++p) {
    int m = min(m0 + p, M - 1);
    int ow = m % OW, t = m / OW;
    int oh = t % OH, n = t / OH;
    ih0[p] = oh * sh - pt;
    iw0[p] = ow * sw - pl;
    nb[p] = n * H;
  }
  FV acc[PIX];
  for (int p = 0; p < PIX; ++p) acc[p] = (FV)(0.0f);
  __global const float *wrow = wt + c0;
  for (int kh = 0; kh < KH; ++kh) {
    for (int kw = 0; kw < KW; ++kw) {
      int off[PIX];
      int all = 1;
      for (int p = 0; p < PIX; ++p) {
        int ih = ih0[p] + kh * dh, iw = iw0[p] + kw * dw;
        off[p] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? ((nb[p] + ih) * W + iw) * Cin : -1;
        all &= off[p] >= 0;
      }
      __global const float *wk = wrow + (kh * KW + kw) * Cin * CoutPad;
      if (all) {
        for (int ci = 0; ci < Cin; ++ci) {
          FV wv = CAT(vload, VW)(0, wk + ci * CoutPad);
#pragma unroll
          for (int p = 0; p < PIX; ++p) acc[p] += x[off[p] + ci] * wv;
        }
      } else {
        for (int ci = 0; ci < Cin; ++ci) {
          FV wv = CAT(vload, VW)(0, wk + ci * CoutPad);
          for (int p = 0; p < PIX; ++p)
            if (off[p] >= 0) acc[p] += x[off[p] + ci] * wv;
        }
      }
    }
  }
  FV bv = CAT(vload, VW)(0, bias + c0);
  for (int p = 0; p < min(PIX, M - m0); ++p) {
    FV v = clamp(acc[p] + bv, lo, hi);
    __global float *dst = y + (m0 + p) * Cout + c0;
    if (c0 + VW <= Cout) {
      CAT(vstore, VW)(v, 0, dst);
    } else {
      float tmp[VW];
      CAT(vstore, VW)(v, 0, tmp);
      for (int j = 0; j < Cout - c0; ++j) dst[j] = tmp[j];
    }
  }
}

// Depthwise convolution, one work item per 8 output channels x DPIX output pixels of a row
// (output channel c reads input channel c / mult); the filter [KH*KW][CoutPad] and the bias
// are padded to a multiple of 8 channels; lanes past Cout read a clamped channel and are not
// stored. Global (CoutPad / 8, ceil(OW / DPIX), N * OH).
#define DPIX 4

inline float8 dw_load(__global const float *p, int c0, int cout, int mult) {
  if (mult == 1 && c0 + 8 <= cout) return vload8(0, p + c0);
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = p[min(c0 + j, cout - 1) / mult];
  return vload8(0, t);
}

__kernel void depthwise(__global const float *x, __global const float *w,
                        __global const float *bias, __global float *y,
                        int H, int W, int Cin, int OH, int OW, int Cout, int CoutPad, int mult,
                        int KH, int KW, int sh, int sw, int dh, int dw, int pt, int pl,
                        float lo, float hi) {
  int c0 = get_global_id(0) * 8, ox0 = get_global_id(1) * DPIX, t = get_global_id(2);
  if (c0 >= Cout || ox0 >= OW) return;
  int oh = t % OH, n = t / OH;
  float8 b8 = vload8(0, bias + c0);
  float8 acc[DPIX];
  for (int p = 0; p < DPIX; ++p) acc[p] = b8;
  for (int kh = 0; kh < KH; ++kh) {
    int ih = oh * sh - pt + kh * dh;
    if (ih < 0 || ih >= H) continue;
    __global const float *row = x + (n * H + ih) * W * Cin;
    for (int kw = 0; kw < KW; ++kw) {
      float8 w8 = vload8(0, w + (kh * KW + kw) * CoutPad + c0);
      for (int p = 0; p < DPIX; ++p) {
        int iw = (ox0 + p) * sw - pl + kw * dw;
        if (iw >= 0 && iw < W) acc[p] += dw_load(row + iw * Cin, c0, Cout, mult) * w8;
      }
    }
  }
  for (int p = 0; p < min(DPIX, OW - ox0); ++p) {
    float8 v = clamp(acc[p], lo, hi);
    __global float *dst = y + (t * OW + ox0 + p) * Cout + c0;
    if (c0 + 8 <= Cout) {
      vstore8(v, 0, dst);
    } else {
      float tmp[8];
      vstore8(v, 0, tmp);
      for (int j = 0; j < Cout - c0; ++j) dst[j] = tmp[j];
    }
  }
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
// offsets from tables (broadcast batches repeat an offset). Each work item computes 4 rows x
// 8 columns (B's 8 columns one vector load when they are contiguous); global
// (ceil(cols / 8), ceil(rows / 4), batches).
inline float8 bmm_row8(__global const float *p, int j0, int cols, int sj) {
  if (sj == 1 && j0 + 8 <= cols) return vload8(0, p + j0);
  float t[8];
  for (int q = 0; q < 8; ++q) t[q] = p[min(j0 + q, cols - 1) * sj];
  return vload8(0, t);
}

__kernel void batch_matmul(__global const float *a, __global const float *b, __global float *y,
                           __global const int *aoff, __global const int *boff,
                           int rows, int cols, int inner, int a_si, int a_sk, int b_sk,
                           int b_sj) {
  int j0 = get_global_id(0) * 8, i0 = get_global_id(1) * 4, bt = get_global_id(2);
  if (j0 >= cols || i0 >= rows) return;
  __global const float *pa[4];
  for (int r = 0; r < 4; ++r) pa[r] = a + aoff[bt] + min(i0 + r, rows - 1) * a_si;
  __global const float *pb = b + boff[bt];
  float8 acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
  for (int k = 0; k < inner; ++k) {
    float8 bv = bmm_row8(pb + k * b_sk, j0, cols, b_sj);
    acc0 += pa[0][k * a_sk] * bv;
    acc1 += pa[1][k * a_sk] * bv;
    acc2 += pa[2][k * a_sk] * bv;
    acc3 += pa[3][k * a_sk] * bv;
  }
  float8 acc[4] = {acc0, acc1, acc2, acc3};
  for (int r = 0; r < min(4, rows - i0); ++r) {
    __global float *dst = y + (bt * rows + i0 + r) * cols + j0;
    if (j0 + 8 <= cols) {
      vstore8(acc[r], 0, dst);
    } else {
      float t[8];
      vstore8(acc[r], 0, t);
      for (int q = 0; q < cols - j0; ++q) dst[q] = t[q];
    }
  }
}
