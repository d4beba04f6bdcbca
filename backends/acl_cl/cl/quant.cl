// Quantized kernels with TFLite's integer arithmetic: int32 accumulation, then the rescale
// MultiplyByQuantizedMultiplier as the interpreter's optimized (vector) kernels do it:
// saturating rounding doubling high multiply (halves away from zero), then a right shift that
// rounds halves up. QT is the 8-bit element type (-DQT=char or -DQT=uchar).
#ifndef QT
#define QT char
#endif

inline int high_mul(int a, int b) {
  if (a == INT_MIN && b == INT_MIN) return INT_MAX;
  long ab = (long)a * (long)b;
  long nudge = ab >= 0 ? (1L << 30) : (1L - (1L << 30));
  long s = ab + nudge;
  return (int)(s >= 0 ? s >> 31 : -((-s) >> 31));
}

inline int rescale_vector(int x, int m, int shift) {
  int left = max(shift, 0), right = max(-shift, 0);
  int scaled = (int)((uint)x << left);       // int32 wrap, as C++
  long h = (long)high_mul(scaled, m);
  return (int)((h + ((1L << right) >> 1)) >> right);
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
  int v = rescale_vector(acc, mult[c * pc], shift[c * pc]) + yzp;
  y[i] = (QT)clamp(v, lo, hi);
}
