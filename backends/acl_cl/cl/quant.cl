// Quantized 8-bit kernels with TFLite's integer arithmetic (see ops/quant_*.py): int32
// accumulation, then MultiplyByQuantizedMultiplier as the interpreter's optimized (vector)
// kernels or its reference kernels do it (FullyConnected, convolutions); byte copies (Concat,
// optionally through a 256-entry requantization table), pooling, a pair-table lookup for binary
// ops and the table softmax. QT is the 8-bit element type (-DQT=char / uchar).
#ifndef QT
#define QT char
#endif
#pragma OPENCL FP_CONTRACT OFF
#include "meta6.cl"

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

// Convolutions: int32 sums of (x - xzp) * w' over the valid taps (padding taps, the input's
// zero point, contribute nothing), w' = filter - its zero point, stored [taps][CoutPad]
// (the padded lanes zero). qconv_out: + bias, rescale (the reference rounding on channels >=
// split), + yzp, clamp, of the n = min(lanes, cout - c0) channels c0.. stored.

inline void qconv_out(const int *a, int n, __global QT *dst, int c0,
                      __global const int *bias, __global const int *mults,
                      __global const int *shifts, int split, int yzp, int lo, int hi) {
  for (int j = 0; j < n; ++j) {
    int co = c0 + j;
    int v = rescale(a[j] + bias[co], mults[co], shifts[co], co < split) + yzp;
    dst[j] = (QT)clamp(v, lo, hi);
  }
}

// Conv2D as an implicit GEMM over an OHWI filter rearranged to [kh*kw*cin][CoutPad], w' as
// float, each work item computing QPIX pixels x QVW channels (build options; QVW 8 or 16,
// CoutPad a multiple of it): the products and partial sums of up to QCHUNK = 256 taps are
// integers below 255 * 255 * 256 < 2^24, exact in float32 (with or without fused
// multiply-adds), so the float sums of each chunk, converted and added in int, are the exact
// int32 sums; float multiply-adds are the fast path on CPU devices (PoCL).
// geo: h, w, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw, pt, pl, CoutPad, m (= n*oh*ow);
// global (CoutPad / QVW, ceil(m / QPIX)).
#define QCHUNK 256
#ifndef QPIX
#define QPIX 16
#endif
#ifndef QVW
#define QVW 16
#endif
#define QCAT_(a, b) a##b
#define QCAT(a, b) QCAT_(a, b)
#define QFV QCAT(float, QVW)
#define QIV QCAT(int, QVW)

#define QLV QCAT(long, QVW)

// high_mul and rescale (its vector rounding) on QVW lanes, lane for lane the scalar functions.
inline QIV high_mul_v(QIV a, QIV b) {
  QLV ab = QCAT(convert_long, QVW)(a) * QCAT(convert_long, QVW)(b);
  QLV s = ab + select((QLV)(1L - (1L << 30)), (QLV)(1L << 30), ab >= 0);
  QIV r = QCAT(convert_int, QVW)(select(-((-s) >> 31), s >> 31, s >= 0));
  return select(r, (QIV)(INT_MAX), (a == INT_MIN) & (b == INT_MIN));
}

inline QIV rescale_v(QIV x, QIV m, QIV shift) {
  QIV left = max(shift, 0);
  QIV h = high_mul_v(QCAT(as_int, QVW)(QCAT(as_uint, QVW)(x) << QCAT(as_uint, QVW)(left)), m);
  QLV r = QCAT(convert_long, QVW)(max(-shift, 0));
  return QCAT(convert_int, QVW)((QCAT(convert_long, QVW)(h) + (((QLV)(1L) << r) >> 1)) >> r);
}

// rescale's reference rounding (halves away from zero) on QVW lanes, lane for lane rescale.
#define QUV QCAT(uint, QVW)
inline QIV rescale_ref_v(QIV x, QIV m, QIV shift) {
  QIV right = max(-shift, 0);
  QIV h = high_mul_v(QCAT(as_int, QVW)(QCAT(as_uint, QVW)(x) << QCAT(as_uint, QVW)(
      max(shift, 0))), m);
  QIV mask = QCAT(as_int, QVW)(((QUV)(1u) << QCAT(as_uint, QVW)(right)) - (QUV)(1u));
  QIV thr = (mask >> 1) - (h < 0);          // comparisons give -1 where true
  return (h >> right) - ((h & mask) > thr);
}

__kernel void qconv(__global const QT *x, __global const float *wt, __global const int *bias,
                    __global QT *y, __global const int *mults, __global const int *shifts,
                    __global const int *geo, int xzp, int yzp, int lo, int hi, int split) {
  int h = geo[0], w = geo[1], cin = geo[2], oh = geo[3], ow = geo[4], cout = geo[5];
  int kh = geo[6], kw = geo[7], sh = geo[8], sw = geo[9], dh = geo[10], dw = geo[11];
  int pt = geo[12], pl = geo[13], pad = geo[14], m = geo[15];
  int c0 = get_global_id(0) * QVW, m0 = get_global_id(1) * QPIX;
  if (c0 >= cout || m0 >= m) return;
  int iy0[QPIX], ix0[QPIX], nb[QPIX];
  for (int p = 0; p < QPIX; ++p) {
    int mm = min(m0 + p, m - 1);
    int ox = mm % ow, t = mm / ow;
    iy0[p] = (t % oh) * sh - pt;
    ix0[p] = ox * sw - pl;
    nb[p] = (t / oh) * h;
  }
  QIV acc[QPIX];
  for (int p = 0; p < QPIX; ++p) acc[p] = (QIV)(0);
  for (int i = 0; i < kh; ++i) {
    for (int j = 0; j < kw; ++j) {
      int off[QPIX];
      int all = 1;
      for (int p = 0; p < QPIX; ++p) {
        int iy = iy0[p] + i * dh, ix = ix0[p] + j * dw;
        off[p] = (iy >= 0 && iy < h && ix >= 0 && ix < w) ? ((nb[p] + iy) * w + ix) * cin : -1;
        all &= off[p] >= 0;
      }
      __global const float *wk = wt + (i * kw + j) * cin * pad + c0;
      for (int k0 = 0; k0 < cin; k0 += QCHUNK) {
        int k1 = min(cin, k0 + QCHUNK);
        QFV f[QPIX];
        for (int p = 0; p < QPIX; ++p) f[p] = (QFV)(0.0f);
        if (all) {
          for (int k = k0; k < k1; ++k) {
            QFV wv = QCAT(vload, QVW)(0, wk + k * pad);
#pragma unroll
            for (int p = 0; p < QPIX; ++p) f[p] += (float)((int)x[off[p] + k] - xzp) * wv;
          }
        } else {
          for (int k = k0; k < k1; ++k) {
            QFV wv = QCAT(vload, QVW)(0, wk + k * pad);
            for (int p = 0; p < QPIX; ++p)
              if (off[p] >= 0) f[p] += (float)((int)x[off[p] + k] - xzp) * wv;
          }
        }
        for (int p = 0; p < QPIX; ++p) acc[p] += QCAT(convert_int, QVW)(f[p]);
      }
    }
  }
  // qconv_out's epilogue on QVW lanes (bias, multipliers and shifts padded to CoutPad) where
  // all lanes use the vector rounding (Conv2D: every channel), else qconv_out itself
  QIV bv = QCAT(vload, QVW)(0, bias + c0), mv = QCAT(vload, QVW)(0, mults + c0);
  QIV sv = QCAT(vload, QVW)(0, shifts + c0);
  int n = min(QVW, cout - c0);
  for (int p = 0; p < min(QPIX, m - m0); ++p) {
    __global QT *dst = y + (m0 + p) * cout + c0;
    if (c0 + n > split) {
      int a[QVW];
      QCAT(vstore, QVW)(acc[p], 0, a);
      qconv_out(a, n, dst, c0, bias, mults, shifts, split, yzp, lo, hi);
      continue;
    }
    QIV v = clamp(rescale_v(acc[p] + bv, mv, sv) + yzp, lo, hi);
    if (n == QVW) {
      QCAT(vstore, QVW)(QCAT(QCAT(convert_, QT), QVW)(v), 0, dst);
    } else {
      int a[QVW];
      QCAT(vstore, QVW)(v, 0, a);
      for (int j = 0; j < n; ++j) dst[j] = (QT)a[j];
    }
  }
}

// 8 input bytes (channels c0.. of one pixel; channel c reads c / mult, lanes past cout a
// clamped channel) minus the zero point.
inline int8 qdw_load(__global const QT *p, int c0, int cout, int mult, int xzp) {
  if (mult == 1 && c0 + 8 <= cout) return convert_int8(vload8(0, p + c0)) - xzp;
  int t[8];
  for (int j = 0; j < 8; ++j) t[j] = (int)p[min(c0 + j, cout - 1) / mult] - xzp;
  return vload8(0, t);
}

#define QDPIX 8

// DepthwiseConv2D, filter [kh*kw][CoutPad]; geo as qconv with mult (the depth multiplier) for
// m; global (CoutPad / 8, ceil(ow / QDPIX), n * oh). Only in programs built with -DQVW=8.
#if QVW == 8
__kernel void qdepthwise(__global const QT *x, __global const short *wt,
                         __global const int *bias, __global QT *y, __global const int *mults,
                         __global const int *shifts, __global const int *geo, int xzp, int yzp,
                         int lo, int hi, int split) {
  int h = geo[0], w = geo[1], cin = geo[2], oh = geo[3], ow = geo[4], cout = geo[5];
  int kh = geo[6], kw = geo[7], sh = geo[8], sw = geo[9], dh = geo[10], dw = geo[11];
  int pt = geo[12], pl = geo[13], pad = geo[14], mult = geo[15];
  int c0 = get_global_id(0) * 8, ox0 = get_global_id(1) * QDPIX, r = get_global_id(2);
  if (c0 >= cout || ox0 >= ow) return;
  int n = r / oh, oy = r % oh;
  int8 acc[QDPIX];
  for (int p = 0; p < QDPIX; ++p) acc[p] = (int8)(0);
  for (int i = 0; i < kh; ++i) {
    int iy = oy * sh - pt + i * dh;
    if (iy < 0 || iy >= h) continue;
    __global const QT *row = x + (n * h + iy) * w * cin;
    for (int j = 0; j < kw; ++j) {
      int8 w8 = convert_int8(vload8(0, wt + (i * kw + j) * pad + c0));
      for (int p = 0; p < QDPIX; ++p) {
        int ix = (ox0 + p) * sw - pl + j * dw;
        if (ix >= 0 && ix < w) acc[p] += qdw_load(row + ix * cin, c0, cout, mult, xzp) * w8;
      }
    }
  }
  // qconv_out on 8 lanes (built with QVW 8; bias, multipliers, shifts padded to CoutPad) when
  // all 8 channels take one rounding (split: vector before, reference from), else qconv_out
  int nc = min(8, cout - c0), vec = c0 + 8 <= split, one = vec || c0 >= split;
  int8 bv = vload8(0, bias + c0), mv = vload8(0, mults + c0), sv = vload8(0, shifts + c0);
  for (int p = 0; p < min(QDPIX, ow - ox0); ++p) {
    __global QT *dst = y + (r * ow + ox0 + p) * cout + c0;
    int a[8];
    if (!one) {
      vstore8(acc[p], 0, a);
      qconv_out(a, nc, dst, c0, bias, mults, shifts, split, yzp, lo, hi);
      continue;
    }
    int8 t = acc[p] + bv;
    int8 v = clamp((vec ? rescale_v(t, mv, sv) : rescale_ref_v(t, mv, sv)) + yzp, lo, hi);
    if (nc == 8) {
      vstore8(QCAT(QCAT(convert_, QT), 8)(v), 0, dst);
    } else {
      vstore8(v, 0, a);
      for (int j = 0; j < nc; ++j) dst[j] = (QT)a[j];
    }
  }
}
#endif

// MEAN (ops/quant_reduce.py): the int32 sum of the reduced elements of output i (meta as
// data.cl reduce6), then rescale(sum - sub, m, shift) (vector rounding on the channels
// i % depth < split), + add, clamped.
__kernel void qmean(__global const QT *x, __global QT *y, __constant int *meta, int count,
                    int sub, int m, int shift, int add, int split, int depth, int lo, int hi,
                    int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int base = reduce_base(i, meta);
  int acc = 0;
  for (int j = 0; j < count; ++j) acc += (int)x[reduce_offset(j, base, meta)];
  int v = rescale(acc - sub, m, shift, i % depth < split) + add;
  y[i] = (QT)clamp(v, lo, hi);
}

// y[i] = table[kind(i)][a byte][b byte], a and b broadcast: meta holds, for 6 padded dims,
// the output shape, then a's and b's element strides (0 where broadcast); kinds (int) gives the
// table offset per output element when use_kinds.
__kernel void qpair_lookup(__global const uchar *a, __global const uchar *b,
                           __global uchar *y, __global const uchar *table,
                           __constant int *meta, __global const int *kinds, int use_kinds,
                           int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int ib;
  int ia = bcast_offsets(i, meta, &ib);
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
