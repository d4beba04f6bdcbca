// Elementwise kernels: binary ops with broadcasting, unary ops and activations (float32).
// Built with -DOPC=<code> (ops/elementwise.py), the op is a constant and the switch folds
// away (PoCL then vectorizes over work items); without it the `op` argument picks it.
#ifdef OPC
#define OP OPC
#else
#define OP op
#endif
#include "meta6.cl"

inline float binop(int op, float a, float b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: { float d = a - b; return d * d; }
    case 5: return fmax(a, b);
    case 6: return fmin(a, b);
    case 8: return a >= 0.0f ? a : a * b;                          // PReLU
    default: return pow(a, b);                                     // 7: POW
  }
}

// Same shapes (or b a scalar when bstep is 0).
__kernel void binary_flat(__global const float *a, __global const float *b,
                          __global float *y, int op, int bstep, float lo, float hi, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = clamp(binop(OP, a[i], b[i * bstep]), lo, hi);
}

// One operand full (y's shape), the other a vector over y's last dim (c values, broadcast
// over the rest; rows == 0) or one value per row of c (rows != 0): y[i] = a[i] op v[k], or
// v[k] op a[i] when swap, k = i % c or i / c.
__kernel void binary_lastdim(__global const float *a, __global const float *v,
                             __global float *y, int op, int c, int swap, float lo, float hi,
                             int n, int rows) {
  int i = get_global_id(0);
  if (i >= n) return;
  float p = a[i], q = v[rows ? i / c : i % c];
  y[i] = clamp(swap ? binop(OP, q, p) : binop(OP, p, q), lo, hi);
}

// meta: 6 output dims, 6 strides of a, 6 strides of b (0 where broadcast).
__kernel void binary_bcast(__global const float *a, __global const float *b,
                           __global float *y, __constant int *meta, int op, float lo, float hi,
                           int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int ib;
  int ia = bcast_offsets(i, meta, &ib);
  y[i] = clamp(binop(OP, a[ia], b[ib]), lo, hi);
}

inline float unop(int op, float x, float alpha) {
  switch (op) {
    case 0: return fmax(x, 0.0f);                                  // RELU
    case 1: return clamp(x, 0.0f, 6.0f);                           // RELU6
    case 2: return clamp(x, -1.0f, 1.0f);                          // RELU_N1_TO_1
    case 3: return clamp(x, 0.0f, 1.0f);                           // RELU_0_TO_1
    case 4: return 1.0f / (1.0f + exp(-x));                        // LOGISTIC
    case 5: return tanh(x);                                        // TANH
    case 6: return x >= 0.0f ? x : x * alpha;                      // LEAKY_RELU
    case 7: return x * clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f;         // HARD_SWISH
    case 8: return x >= 0.0f ? x : exp(x) - 1.0f;                  // ELU
    case 9: return -x;                                             // NEG
    case 10: return rsqrt(x);                                      // RSQRT
    case 11: return sqrt(x);                                       // SQRT
    case 12: return exp(x);                                        // EXP
    case 13: return fabs(x);                                       // ABS
    case 14: return x * x;                                         // SQUARE
    case 15: return log(x);                                        // LOG
    case 16: return sin(x);                                        // SIN
    case 17: return cos(x);                                        // COS
    case 18: return floor(x);                                      // FLOOR
    case 19: return ceil(x);                                       // CEIL
    default: return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));  // GELU (exact)
  }
}

__kernel void unary(__global const float *x, __global float *y, int op, float alpha, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = unop(OP, x[i], alpha);
}
