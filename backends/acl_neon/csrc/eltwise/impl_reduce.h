// Generic softmax, reductions and arg-min/max on the including ISA file's vector layer.
#pragma once

#include <algorithm>

#include "eltwise.h"
#include "parallel.h"

namespace onert_neon {
namespace eltwise {
namespace {

// ---- softmax over rows of n ----
void softmax_row(const float* x, float* y, int64_t n, float beta) {
  V vm = set1(-INFINITY);
  int64_t i = 0;
  for (; i + W <= n; i += W) vm = vmax(load(x + i), vm);
  float t[W];
  store(t, vm);
  float mx = -INFINITY;
  for (int k = 0; k < W; ++k) mx = t[k] > mx ? t[k] : mx;
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  const V vmx = set1(mx), vb = set1(beta);
  V s0 = set1(0.0f), s1 = set1(0.0f);
  i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    V e0 = vexp(mul(sub(load(x + i), vmx), vb));
    V e1 = vexp(mul(sub(load(x + i + W), vmx), vb));
    store(y + i, e0);
    store(y + i + W, e1);
    s0 = add(s0, e0);
    s1 = add(s1, e1);
  }
  for (; i + W <= n; i += W) {
    V e = vexp(mul(sub(load(x + i), vmx), vb));
    store(y + i, e);
    s0 = add(s0, e);
  }
  float sum = hsum_ordered(add(s0, s1));
  if (i < n) {
    const int64_t r = n - i;
    for (int k = 0; k < W; ++k) t[k] = k < r ? x[i + k] : mx;
    store(t, vexp(mul(sub(load(t), vmx), vb)));
    for (int64_t k = 0; k < r; ++k) { y[i + k] = t[k]; sum += t[k]; }
  }
  const V inv = set1(1.0f / sum);
  i = 0;
  for (; i + W <= n; i += W) store(y + i, mul(load(y + i), inv));
  for (; i < n; ++i) y[i] *= 1.0f / sum;
}

void softmax_impl(const float* x, float* y, int64_t rows, int64_t n, float beta, int threads) {
  const int64_t grain = n >= 4096 ? 1 : 4096 / (n > 0 ? n : 1);
  parallel_range(threads, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) softmax_row(x + r * n, y + r * n, n, beta);
  });
}

// ---- reductions ----
template <int OP> inline V red(V x, V acc) {
  // acc > x ? acc : x, as TFLite: a NaN x makes acc NaN, the next x replaces a NaN acc
  if constexpr (OP == kRMax) return vmax(acc, x);
  if constexpr (OP == kRMin) return vmin(acc, x);
  if constexpr (OP == kProd) return mul(acc, x);
  return add(acc, x);
}
template <int OP> inline float red1(float x, float acc) {
  if constexpr (OP == kRMax) return acc > x ? acc : x;
  if constexpr (OP == kRMin) return acc < x ? acc : x;
  if constexpr (OP == kProd) return acc * x;
  return acc + x;
}
template <int OP> constexpr float identity() {
  if constexpr (OP == kRMax) return -INFINITY;
  if constexpr (OP == kRMin) return INFINITY;
  if constexpr (OP == kProd) return 1.0f;
  return 0.0f;
}

// the input offset of flat index `i` over dims (shape, stride)[0:nd]
inline int64_t offset_of(int64_t i, const int64_t* shape, const int64_t* stride, int nd) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (i % shape[d]) * stride[d];
    i /= shape[d];
  }
  return off;
}

// Columns [j0, j1) (at most 8 vectors) of one kept row: NV vector sums kept in registers over
// every reduced offset (the last vector masked to the columns that exist), each column's
// values combined in the reduced offsets' order, as one pass down the input would (TFLite's
// reference reduction order), then stored once.
template <int OP, int NV>
inline void reduce_cols(const ReduceParams& p, const float* base, int64_t nred, int64_t j0,
                        int64_t j1, float* yr) {
  V acc[NV];
  const int tail = static_cast<int>(j1 - j0 - (NV - 1) * W);   // lanes of the last vector
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) acc[v] = set1(identity<OP>());
  const bool flat = p.nr == 1;                                  // one reduced dim: a stride
  for (int64_t r = 0; r < nred; ++r) {
    const float* xr = base + j0 + (flat ? r * p.rstride[0] : offset_of(r, p.rshape, p.rstride, p.nr));
#pragma GCC unroll 8
    for (int v = 0; v < NV - 1; ++v) acc[v] = red<OP>(load(xr + v * W), acc[v]);
    acc[NV - 1] = red<OP>(tail == W ? load(xr + (NV - 1) * W) : load_n(xr + (NV - 1) * W, tail),
                          acc[NV - 1]);
  }
  const V count = set1(static_cast<float>(nred));
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    const V out = OP == kMean ? div(acc[v], count) : acc[v];
    if (v < NV - 1 || tail == W) store(yr + j0 + v * W, out);
    else store_n(yr + j0 + v * W, out, tail);
  }
}

template <int OP>
void reduce_run(const ReduceParams& p, const float* x, float* y, int threads) {
  int64_t nred = 1, nkept = 1;
  for (int d = 0; d < p.nr; ++d) nred *= p.rshape[d];
  for (int d = 0; d < p.nk; ++d) nkept *= p.kshape[d];
  if (p.inner_kept) {                   // rows of n accumulated over every reduced offset
    const int64_t n = p.kshape[p.nk - 1], outer = nkept / n;
    // tasks: (kept row, run of at most 8 vectors of columns). Columns are not split finer
    // for more threads: the rows the previous layer wrote are split between the cores' caches,
    // and a thread reading every row's half of the channels ran slower than one reading all
    // (EfficientNet-B0's 112x112x32 squeeze-and-excitation MEAN: 25 us at 1 thread, 35 split)
    const int64_t cols = 8 * W;
    const int64_t runs = (n + cols - 1) / cols;
    const int64_t work = nred * std::min(cols, n);
    const int64_t grain = work >= (1 << 15) ? 1 : (1 << 15) / work;
    parallel_range(threads, outer * runs, grain, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t o = t / runs, j0 = t % runs * cols, j1 = std::min(n, j0 + cols);
        const float* base = x + offset_of(o, p.kshape, p.kstride, p.nk - 1);
        float* yr = y + o * n;
        switch ((j1 - j0 + W - 1) / W) {
          case 1: reduce_cols<OP, 1>(p, base, nred, j0, j1, yr); break;
          case 2: reduce_cols<OP, 2>(p, base, nred, j0, j1, yr); break;
          case 3: reduce_cols<OP, 3>(p, base, nred, j0, j1, yr); break;
          case 4: reduce_cols<OP, 4>(p, base, nred, j0, j1, yr); break;
          case 5: reduce_cols<OP, 5>(p, base, nred, j0, j1, yr); break;
          case 6: reduce_cols<OP, 6>(p, base, nred, j0, j1, yr); break;
          case 7: reduce_cols<OP, 7>(p, base, nred, j0, j1, yr); break;
          default: reduce_cols<OP, 8>(p, base, nred, j0, j1, yr); break;
        }
      }
    });
  } else {                              // each output: contiguous runs of n reduced
    const int64_t n = p.rshape[p.nr - 1], outer_r = nred / n;
    const int64_t grain = nred >= (1 << 15) ? 1 : (1 << 15) / nred;
    parallel_range(threads, nkept, grain, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        const float* base = x + offset_of(o, p.kshape, p.kstride, p.nk);
        V a0 = set1(identity<OP>()), a1 = a0, nan = set1(0.0f);
        constexpr bool kOrdered = OP == kRMax || OP == kRMin;
        float acc = identity<OP>();
        for (int64_t r = 0; r < outer_r; ++r) {
          const float* xr = base + offset_of(r, p.rshape, p.rstride, p.nr - 1);
          int64_t j = 0;
          for (; j + 2 * W <= n; j += 2 * W) {
            V x0 = load(xr + j), x1 = load(xr + j + W);
            a0 = red<OP>(x0, a0);
            a1 = red<OP>(x1, a1);
            if (kOrdered) nan = add(nan, add(mul(x0, set1(0.0f)), mul(x1, set1(0.0f))));
          }
          for (; j + W <= n; j += W) {
            V x0 = load(xr + j);
            a0 = red<OP>(x0, a0);
            if (kOrdered) nan = add(nan, mul(x0, set1(0.0f)));
          }
          for (; j < n; ++j) acc = red1<OP>(xr[j], acc);
        }
        float t[W];
        store(t, red<OP>(a1, a0));
        for (int k = 0; k < W; ++k) acc = red1<OP>(t[k], acc);
        if (kOrdered && hsum_ordered(nan) != 0.0f) {    // a NaN (or Inf) seen: TFLite's exact order
          acc = identity<OP>();
          for (int64_t r = 0; r < outer_r; ++r) {
            const float* xr = base + offset_of(r, p.rshape, p.rstride, p.nr - 1);
            for (int64_t j = 0; j < n; ++j) acc = red1<OP>(xr[j], acc);
          }
        }
        y[o] = OP == kMean ? acc / static_cast<float>(nred) : acc;
      }
    });
  }
}

void reduce_impl(const ReduceParams& p, const float* x, float* y, int threads) {
  switch (p.op) {
    case kSum: reduce_run<kSum>(p, x, y, threads); break;
    case kMean: reduce_run<kMean>(p, x, y, threads); break;
    case kRMax: reduce_run<kRMax>(p, x, y, threads); break;
    case kRMin: reduce_run<kRMin>(p, x, y, threads); break;
    case kProd: reduce_run<kProd>(p, x, y, threads); break;
    default: break;
  }
}

// ---- arg max / min, as the interpreter: the first index of the extreme among the non-NaN
// values (0 when all are NaN) ----
inline void put_index(void* out, bool out64, int64_t i, int64_t v) {
  if (out64) static_cast<int64_t*>(out)[i] = v;
  else static_cast<int32_t*>(out)[i] = static_cast<int32_t>(v);
}

inline bool better1(float v, float best, bool is_max) {
  return (is_max ? v > best : v < best) || (best != best && v == v);
}

// one contiguous row: lanes start at the first non-NaN value; strict compares skip NaN
int64_t arg_row(const float* x, int64_t len, bool is_max) {
  static const float kIota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  int64_t f = 0;
  while (f < len && x[f] != x[f]) ++f;
  if (f == len) return 0;
  V best = set1(x[f]), idx = set1(static_cast<float>(f));
  const V iota = load(kIota);
  int64_t i = 0;
  for (; i + W <= len; i += W) {
    V v = load(x + i);
    M m = is_max ? gt(v, best) : lt(v, best);
    best = select(m, v, best);
    idx = select(m, add(set1(static_cast<float>(i)), iota), idx);
  }
  float tb[W], ti[W];
  store(tb, best);
  store(ti, idx);
  float bv = x[f];
  int64_t bi = f;
  for (int k = 0; k < W; ++k) {
    const int64_t ik = static_cast<int64_t>(ti[k]);
    const bool win = is_max ? tb[k] > bv : tb[k] < bv;
    if (win || (tb[k] == bv && ik < bi)) { bv = tb[k]; bi = ik; }
  }
  for (; i < len; ++i)
    if (is_max ? x[i] > bv : x[i] < bv) { bv = x[i]; bi = i; }
  return bi;
}

// columns [j0, j1) of one [len, inner] slab
void arg_cols(const float* x, int64_t len, int64_t inner, int64_t j0, int64_t j1, bool is_max,
              void* out, bool out64, int64_t out_off) {
  int64_t j = j0;
  for (; j + W <= j1; j += W) {
    V best = load(x + j), idx = set1(0.0f);
    for (int64_t i = 1; i < len; ++i) {
      const V v = load(x + i * inner + j), vi = set1(static_cast<float>(i));
      const M fill = mand(ne(best, best), eq(v, v));      // a NaN best takes any number
      best = select(fill, v, best);
      idx = select(fill, vi, idx);
      const M m = is_max ? gt(v, best) : lt(v, best);
      best = select(m, v, best);
      idx = select(m, vi, idx);
    }
    float ti[W];
    store(ti, idx);
    for (int k = 0; k < W; ++k) put_index(out, out64, out_off + j + k, static_cast<int64_t>(ti[k]));
  }
  for (; j < j1; ++j) {
    float bv = x[j];
    int64_t bi = 0;
    for (int64_t i = 1; i < len; ++i) {
      const float v = x[i * inner + j];
      if (better1(v, bv, is_max)) { bv = v; bi = i; }
    }
    put_index(out, out64, out_off + j, bi);
  }
}

void argminmax_impl(const float* x, void* out, bool out64, int64_t outer, int64_t len,
                    int64_t inner, bool is_max, int threads) {
  const int64_t work = len * inner;
  if (inner == 1) {
    const int64_t grain = len >= (1 << 15) ? 1 : (1 << 15) / len;
    parallel_range(threads, outer, grain, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) put_index(out, out64, o, arg_row(x + o * len, len, is_max));
    });
  } else if (outer == 1) {
    const int64_t grain = (len >= (1 << 15) ? 1 : (1 << 15) / len) * W;
    parallel_range(threads, inner, grain, [&](int64_t j0, int64_t j1) {
      arg_cols(x, len, inner, j0, j1, is_max, out, out64, 0);
    });
  } else {
    const int64_t grain = work >= (1 << 15) ? 1 : (1 << 15) / work;
    parallel_range(threads, outer, grain, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o)
        arg_cols(x + o * work, len, inner, 0, inner, is_max, out, out64, o * inner);
    });
  }
}

}  // namespace
}  // namespace eltwise
}  // namespace onert_neon
