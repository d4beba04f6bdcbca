// Data movement (elements of type T: -DT=uchar/ushort/uint/ulong copies any type by its
// size; float by default) and reductions (float32). meta arrays describe up to 6 dimensions.
#ifndef T
#define T float
#endif
#include "meta6.cl"

// Gather by strides: out index -> input index per dim (i = o + start[d]); outside [0, in_dim)
// gives `fill` (Pad); Transpose passes permuted strides. meta: dims, strides, start, in_dims.
__kernel void gather_nd6(__global const T *x, __global T *y, __constant int *meta,
                         T fill, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int r = i, off = 0, inside = 1;
  for (int d = 5; d >= 0; --d) {
    int dim = meta[d];
    int o = r % dim;
    r /= dim;
    int k = o + meta[12 + d];
    inside &= (k >= 0) & (k < meta[18 + d]);
    off += k * meta[6 + d];
  }
  y[i] = inside ? x[off] : fill;
}

// Copy `rows` rows of `cols` floats into a destination with rows `dst_cols` long, from column
// `dst_col` (one input of a Concat).
__kernel void copy_rows(__global const T *x, __global T *y, int cols, int dst_cols,
                        int dst_col, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int r = i / cols, c = i % cols;
  y[r * dst_cols + dst_col + c] = x[i];
}

// kind: 0 sum, 1 mean, 2 max, 3 min, 4 prod. meta: 6 kept dims, their strides, 6 reduced
// dims, their strides.
__kernel void reduce6(__global const float *x, __global float *y, __constant int *meta,
                      int kind, int count, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int base = reduce_base(i, meta);
  float acc = kind == 2 ? -INFINITY : (kind == 3 ? INFINITY : (kind == 4 ? 1.0f : 0.0f));
  for (int j = 0; j < count; ++j) {
    float v = x[reduce_offset(j, base, meta)];
    acc = kind == 2 ? fmax(acc, v) : (kind == 3 ? fmin(acc, v) : (kind == 4 ? acc * v : acc + v));
  }
  y[i] = kind == 1 ? acc / (float)count : acc;
}

// reduce6 when the reduced axes are consecutive: x viewed as (outer, r, inner), y[o, i] the
// reduction over r in order (as reduce6); consecutive work items read consecutive addresses.
__kernel void reduce_mid(__global const float *x, __global float *y, int kind, int r,
                         int inner, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  __global const float *p = x + (i / inner) * r * inner + i % inner;
  float acc = kind == 2 ? -INFINITY : (kind == 3 ? INFINITY : (kind == 4 ? 1.0f : 0.0f));
  for (int j = 0; j < r; ++j) {
    float v = p[j * inner];
    acc = kind == 2 ? fmax(acc, v) : (kind == 3 ? fmin(acc, v) : (kind == 4 ? acc * v : acc + v));
  }
  y[i] = kind == 1 ? acc / (float)r : acc;
}

__kernel void softmax_rows(__global const float *x, __global float *y, int cols, float beta,
                           int log_softmax, int rows) {
  int r = get_global_id(0);
  if (r >= rows) return;
  __global const float *p = x + r * cols;
  __global float *q = y + r * cols;
  float mx = -INFINITY;
  for (int j = 0; j < cols; ++j) mx = fmax(mx, p[j]);
  float s = 0.0f;
  for (int j = 0; j < cols; ++j) {
    float e = exp((p[j] - mx) * beta);
    q[j] = e;
    s += e;
  }
  if (log_softmax) {
    float ls = log(s);
    for (int j = 0; j < cols; ++j) q[j] = (p[j] - mx) * beta - ls;
  } else {
    float inv = 1.0f / s;
    for (int j = 0; j < cols; ++j) q[j] *= inv;
  }
}
