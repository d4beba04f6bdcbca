// Index-table gathers, Gather/EmbeddingLookup, comparisons and logical ops (bool as uchar),
// ArgMin/ArgMax, OneHot, TopK. T is the element type (-DT=float by default).
#ifndef T
#define T float
#endif
#ifndef IDX
#define IDX int
#endif
#include "meta6.cl"

// y[i] = x[table[i]], or `fill` where the table holds -1 (padding). The table is computed on
// the host once from the op's constant parameters (Slice, Split, Reverse, DepthToSpace, ...).
__kernel void take_table(__global const T *x, __global T *y, __global const int *table,
                         T fill, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int s = table[i];
  y[i] = s >= 0 ? x[s] : fill;
}

// out[o, j, k] = x[o, idx[j], k]; an index outside [0, limit) writes 0 and sets err[0].
__kernel void gather_axis(__global const T *x, __global const IDX *idx, __global T *y,
                          __global int *err, int limit, int nidx, int inner, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int k = i % inner, t = i / inner;
  int j = t % nidx, o = t / nidx;
  long s = idx[j];
  if (s < 0 || s >= limit) {
    err[0] = 1;
    y[i] = (T)0;
    return;
  }
  y[i] = x[(o * limit + s) * inner + k];
}

// op: 0 ==, 1 !=, 2 >, 3 >=, 4 <, 5 <=. meta as binary_bcast (dims, strides of a, of b).
__kernel void compare_bcast(__global const T *a, __global const T *b, __global uchar *y,
                            __constant int *meta, int op, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int ib;
  int ia = bcast_offsets(i, meta, &ib);
  T u = a[ia], v = b[ib];
  int r;
  switch (op) {
    case 0: r = u == v; break;
    case 1: r = u != v; break;
    case 2: r = u > v; break;
    case 3: r = u >= v; break;
    case 4: r = u < v; break;
    default: r = u <= v;
  }
  y[i] = (uchar)r;
}

// op: 0 and, 1 or (bool tensors as uchar 0/1).
__kernel void logical_bcast(__global const uchar *a, __global const uchar *b, __global uchar *y,
                            __constant int *meta, int op, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int ib;
  int ia = bcast_offsets(i, meta, &ib);
  int u = a[ia] != 0, v = b[ib] != 0;
  y[i] = (uchar)(op == 0 ? (u & v) : (u | v));
}

// The first extreme along the middle axis of [outer, len, inner].
__kernel void argminmax(__global const T *x, __global IDX *y, int len, int inner, int is_min,
                        int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int k = i % inner, o = i / inner;
  __global const T *p = x + o * len * inner + k;
  T best = p[0];
  int at = 0;
  for (int j = 1; j < len; ++j) {
    T v = p[j * inner];
    if (is_min ? v < best : v > best) {
      best = v;
      at = j;
    }
  }
  y[i] = (IDX)at;
}

// out[o, d, k] = idx[o, k] == d ? on : off, for [outer, depth, inner].
__kernel void one_hot(__global const int *idx, __global T *y, __global const T *on,
                      __global const T *off, int depth, int inner, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int k = i % inner, t = i / inner;
  int d = t % depth, o = t / depth;
  y[i] = idx[o * inner + k] == d ? on[0] : off[0];
}

// The k largest of each row, descending; equal values by lower index (a selection per rank).
__kernel void top_k(__global const T *x, __global T *vals, __global int *idx, int cols, int k,
                    int rows) {
  int r = get_global_id(0);
  if (r >= rows) return;
  __global const T *p = x + r * cols;
  int prev = -1;
  T prev_v = (T)0;
  for (int q = 0; q < k; ++q) {
    int at = -1;
    T best = (T)0;
    for (int j = 0; j < cols; ++j) {
      T v = p[j];
      // after (prev_v, prev) in the order (value descending, index ascending)
      if (prev >= 0 && !(v < prev_v || (v == prev_v && j > prev))) continue;
      if (at < 0 || v > best) {
        best = v;
        at = j;
      }
    }
    vals[r * k + q] = best;
    idx[r * k + q] = at;
    prev = at;
    prev_v = best;
  }
}
