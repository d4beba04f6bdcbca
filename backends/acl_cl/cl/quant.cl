// Quantized 8-bit kernels with TFLite's integer arithmetic (see ops/quant_*.py): int32
// accumulation, then MultiplyByQuantizedMultiplier as the interpreter's optimized (vector)
// kernels or its reference kernels do it (FullyConnected, convolutions); byte copies (Concat,
// optionally through a 256-entry requantization table), pooling, a pair-table lookup for binary
// ops and the table softmax. QT is the 8-bit element type (-DQT=char / uchar).
#ifndef QT
#define QT char
#endif
#pragma OPENCL FP_CONTRACT OFF

inline int high_mul(int a, int b) {
  if (a == INT_MIN && b == INT_MIN) return INT_MAX;
  long ab = (long)a * (long)b;
  long nudge = ab >= 0 ? (1L << 30) : (1L - (1L << 30));
  long s = ab + nudge;
  return (int)(s >= 0 ? s >> 31 : -((-s) >> 31));
}

// MultiplyByQuantizedMultiplier: vector form (final shift rounds halves up) when vec != 0,
// else the reference RoundingDivideByPOT (halves away from zero).
inline int rescale(int x, int m, int shift, int vec) {
  int left = max(shift, 0), right = max(-shift, 0);
  int h = high_mul((int)((uint)x << left), m);
  if (vec) return (int)(((long)h + ((1L << right) >> 1)) >> right);
  int mask = (int)((1L << right) - 1);
  int rem = h & mask;
  int thr = (mask >> 1) + (h < 0 ? 1 : 0);
  return (h >> right) + (rem > thr ? 1 : 0);
}

// y[r, c] = clamp(rescale(sum_k (x[r,k] - xzp) * (w[c,k] - wzp[c]) + bias[c]) + yzp).
// One work item per output; weights [units][depth] as stored.
__kernel void qfc(__global const QT *x, __global const QT *w, __global const int *bias,
                  __global QT *y, __global const int *mult, __global const int *shift,
                  __global const int *wzp, int depth, int units, int xzp, int yzp, int lo,
                  int hi, int pc, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int c = i % units, r = i / units;
  __global const QT *px = x + r * depth;
  __global const QT *pw = w + c * depth;
  int wz = wzp[c * pc];
  int acc = 0;
  for (int k = 0; k < depth; ++k) acc += ((int)px[k] - xzp) * ((int)pw[k] - wz);
  acc += bias[c];
  int v = rescale(acc, mult[c * pc], shift[c * pc], 1) + yzp;
  y[i] = (QT)clamp(v, lo, hi);
}

// One input of a concatenation: rows of `cols` bytes into rows of `dst_cols` at column `col`;
// through `table` (byte -> byte) when use_table.
__kernel void qcopy_rows(__global const uchar *src, __global uchar *dst,
                         __global const uchar *table, int cols, int dst_cols, int col,
                         int use_table, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uchar v = src[i];
  dst[(i / cols) * dst_cols + col + i % cols] = use_table ? table[v] : v;
}

// AVERAGE (kind 0: rounded division of the valid taps' sum, halves away from zero) or MAX
// (kind 1) pooling, NHWC, one work item per output element; global (c, ow, n*oh).
__kernel void qpool(__global const QT *x, __global QT *y, int h, int w, int c, int oh, int ow,
                    int kh, int kw, int sh, int sw, int pt, int pl, int kind, int lo, int hi) {
  int ch = get_global_id(0), ox = get_global_id(1), r = get_global_id(2);
  int n = r / oh, oy = r % oh;
  int y0 = oy * sh - pt, x0 = ox * sw - pl;
  int acc = kind == 0 ? 0 : INT_MIN, cnt = 0;
  for (int i = max(y0, 0); i < min(y0 + kh, h); ++i)
    for (int j = max(x0, 0); j < min(x0 + kw, w); ++j) {
      int v = (int)x[((n * h + i) * w + j) * c + ch];
      acc = kind == 0 ? acc + v : max(acc, v);
      ++cnt;
    }
  if (kind == 0) {
    cnt = max(cnt, 1);
    int mag = (abs(acc) + cnt / 2) / cnt;
    acc = acc > 0 ? mag : -mag;
  }
  y[((n * oh + oy) * ow + ox) * c + ch] = (QT)clamp(acc, lo, hi);
}

// Convolution (depthwise when mult > 0: output channel co reads input channel co / mult and
// the filter [1][kh][kw][cout]; else the OHWI filter over all input channels). Padding taps
// (the input's zero point) contribute nothing. Channels >= split use the reference rescale.
// geo: h, w, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw, pt, pl, mult; global (cout, ow, n*oh).
__kernel void qconv(__global const QT *x, __global const QT *f, __global const int *bias,
                    __global QT *y, __global const int *mults, __global const int *shifts,
                    __global const int *geo, int xzp, int wzp, int yzp, int lo, int hi,
                    int split) {
  int co = get_global_id(0), ox = get_global_id(1), r = get_global_id(2);
  int h = geo[0], w = geo[1], cin = geo[2], oh = geo[3], ow = geo[4], cout = geo[5];
  int kh = geo[6], kw = geo[7], sh = geo[8], sw = geo[9], dh = geo[10], dw = geo[11];
  int pt = geo[12], pl = geo[13], mult = geo[14];
  int n = r / oh, oy = r % oh;
  int acc = 0;
  for (int i = 0; i < kh; ++i) {
    int iy = oy * sh - pt + i * dh;
    if (iy < 0 || iy >= h) continue;
    for (int j = 0; j < kw; ++j) {
      int ix = ox * sw - pl + j * dw;
      if (ix < 0 || ix >= w) continue;
      __global const QT *px = x + ((n * h + iy) * w + ix) * cin;
      if (mult > 0) {
        acc += ((int)px[co / mult] - xzp) * ((int)f[(i * kw + j) * cout + co] - wzp);
      } else {
        __global const QT *pf = f + ((co * kh + i) * kw + j) * cin;
        for (int k = 0; k < cin; ++k) acc += ((int)px[k] - xzp) * ((int)pf[k] - wzp);
      }
    }
  }
  acc += bias[co];
  int v = rescale(acc, mults[co], shifts[co], co < split) + yzp;
  y[((n * oh + oy) * ow + ox) * cout + co] = (QT)clamp(v, lo, hi);
}

// y[i] = table[kind(i)][a byte][b byte], a and b broadcast: meta holds, for 6 padded dims,
// the output shape, then a's and b's element strides (0 where broadcast); kinds (int) gives the
// table offset per output element when use_kinds.
__kernel void qpair_lookup(__global const uchar *a, __global const uchar *b,
                           __global uchar *y, __global const uchar *table,
                           __global const int *meta, __global const int *kinds, int use_kinds,
                           int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int rest = i, ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    int dim = meta[d];
    int k = rest % dim;
    rest /= dim;
    ia += k * meta[6 + d];
    ib += k * meta[12 + d];
  }
  int off = use_kinds ? kinds[i] : 0;
  y[i] = table[off + ((int)a[ia] << 8) + (int)b[ib]];
}

// Softmax over rows of `depth` bytes (the interpreter's SoftmaxInt8LUT): table[255 - m + v]
// with m the row max, a sequential float32 sum, p = e * (1 / (sum * out_scale)); OT: output
// type; mode 0: round half away + zp (int8/int16 out), mode 1: (int)(p + 0.5f) (uint8 out).
#ifndef OT
#define OT QT
#endif
__kernel void qsoftmax(__global const QT *x, __global OT *y, __constant float *table,
                       int depth, int rows, float out_scale, int zp, int mode, int lo, int hi) {
  int r = get_global_id(0);
  if (r >= rows) return;
  __global const QT *px = x + r * depth;
  __global OT *py = y + r * depth;
  int off = (QT)(-1) < 0 ? 128 : 0;
  int m = 0;
  for (int k = 0; k < depth; ++k) m = max(m, (int)px[k] + off);
  float sum = 0.0f;
  for (int k = 0; k < depth; ++k) sum = sum + table[255 - m + (int)px[k] + off];
  float inv = 1.0f / (sum * out_scale);
  for (int k = 0; k < depth; ++k) {
    float p = table[255 - m + (int)px[k] + off] * inv;
    int q = mode == 0 ? (int)round(p) + zp : (int)(p + 0.5f);
    py[k] = (OT)clamp(q, lo, hi);
  }
}
