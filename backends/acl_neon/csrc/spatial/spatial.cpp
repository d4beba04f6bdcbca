// Baseline (portable; SSE2 on x86-64, NEON on aarch64) spatial kernels and the dispatchers that
// split the work over threads and pick the AVX2 / AVX-512 bodies when the CPU has them.
#include "spatial.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <vector>

#include "isa.h"
#include "parallel.h"
#include "simd_base.h"
#include "simd_math.h"

namespace onert_neon {
namespace {

using namespace simd;

#include "spatial_kernels.inc"

// Depthwise with a channel multiplier > 1 (rare in models): plain loops over the taps.
void dw_rows_mult(const DepthwiseParams& p, const float* x, const float* w, const float* bias,
                  float* y, int64_t r0, int64_t r1) {
  const int64_t cout = int64_t{p.cin} * p.mult;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / p.oh;
    const int oy = static_cast<int>(r % p.oh);
    const float* img = x + b * p.h * p.w * p.cin;
    for (int ox = 0; ox < p.ow; ++ox) {
      float* out = y + (r * p.ow + ox) * cout;
      for (int64_t k = 0; k < cout; ++k) out[k] = bias[k];
      for (int ky = 0; ky < p.kh; ++ky) {
        const int iy = oy * p.sh - p.pt + ky * p.dh;
        if (iy < 0 || iy >= p.h) continue;
        for (int kx = 0; kx < p.kw; ++kx) {
          const int ix = ox * p.sw - p.pl + kx * p.dw;
          if (ix < 0 || ix >= p.w) continue;
          const float* in = img + (int64_t{iy} * p.w + ix) * p.cin;
          const float* wt = w + (int64_t{ky} * p.kw + kx) * cout;
          for (int c = 0; c < p.cin; ++c)
            for (int m = 0; m < p.mult; ++m)
              out[c * p.mult + m] += in[c] * wt[c * p.mult + m];
        }
      }
      for (int64_t k = 0; k < cout; ++k)
        out[k] = std::fmin(std::fmax(out[k], p.lo), p.hi);
    }
  }
}

// rows per parallel chunk so that each chunk does at least ~32K multiply-adds
int64_t grain_for(int64_t work_per_row) {
  const int64_t target = 32 * 1024;
  return work_per_row >= target ? 1 : (target + work_per_row - 1) / (work_per_row > 0 ? work_per_row : 1);
}

// ISA_ROWS(base, name): the portable / NEON body `base`, or name_avx2 / name_avx512
// (spatial_isa.inc) when the active ISA is one of those.
#if defined(__x86_64__)
template <class Fn>
Fn for_active_isa(Fn base, Fn avx2, Fn avx512) {
  switch (active_isa()) {
    case Isa::Avx512: return avx512;
    case Isa::Avx2: return avx2;
    default: return base;
  }
}
#define ISA_ROWS(base, name) for_active_isa(base, name##_avx2, name##_avx512)
#else
#define ISA_ROWS(base, name) (base)
#endif

}  // namespace

void depthwise_conv_f32(const DepthwiseParams& p, const float* x, const float* w,
                        const float* bias, float* y, int threads, const Epilogue* epi) {
  assert(p.n >= 0 && p.h > 0 && p.w > 0 && p.cin > 0 && p.mult > 0 && p.kh > 0 && p.kw > 0);
  assert(p.sh > 0 && p.sw > 0 && p.dh > 0 && p.dw > 0 && p.oh >= 0 && p.ow >= 0);
  const DepthwiseRowsFn fn = p.mult != 1 ? dw_rows_mult : ISA_ROWS(dw_rows, depthwise_rows);
  const int64_t rows = int64_t{p.n} * p.oh;
  const int64_t work = int64_t{p.ow} * p.cin * p.mult * p.kh * p.kw;
  if (!epi) {
    parallel_range(threads, rows, grain_for(work),
                   [&](int64_t b, int64_t e) { fn(p, x, w, bias, y, b, e); });
    return;
  }
  const EpilogueRowsFn epi_fn = ISA_ROWS(epilogue_rows, row_epilogue);
  const int64_t row_len = int64_t{p.ow} * p.cin * p.mult;
  parallel_range(threads, rows, grain_for(work), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {      // the row, then its epilogue while it is in L1
      fn(p, x, w, bias, y, r, r + 1);
      epi_fn(*epi, y + r * row_len, 1, row_len, row_len);
    }
  });
}

void pool2d_f32(const PoolParams& p, const float* x, float* y, int threads) {
  assert(p.n >= 0 && p.h > 0 && p.w > 0 && p.c > 0 && p.kh > 0 && p.kw > 0);
  assert(p.sh > 0 && p.sw > 0 && p.oh >= 0 && p.ow >= 0);
  const PoolRowsFn fn = ISA_ROWS(pool_rows, pool_rows);
  const int64_t work = int64_t{p.ow} * p.c * p.kh * p.kw;
  parallel_range(threads, int64_t{p.n} * p.oh, grain_for(work),
                 [&](int64_t b, int64_t e) { fn(p, x, y, b, e); });
}

void resize_bilinear_f32(const ResizeParams& p, const float* x, float* y, int threads) {
  assert(p.n >= 0 && p.h > 0 && p.w > 0 && p.c > 0 && p.oh >= 0 && p.ow >= 0);
  const ResizeRowsFn fn = ISA_ROWS(resize_rows, resize_rows);
  parallel_range(threads, int64_t{p.n} * p.oh, grain_for(int64_t{p.ow} * p.c * 4),
                 [&](int64_t b, int64_t e) { fn(p, x, y, b, e); });
}

void l2_normalize_f32(const float* x, float* y, int64_t rows, int64_t depth, float lo, float hi,
                      int threads) {
  assert(rows >= 0 && depth >= 0);
  if (depth == 0) return;
  const L2RowsFn fn = ISA_ROWS(l2_rows, l2_rows);
  parallel_range(threads, rows, grain_for(depth * 2),
                 [&](int64_t b, int64_t e) { fn(x, y, depth, b, e, lo, hi); });
}

void instance_norm_f32(const InstanceNormParams& p, const float* x, const float* gamma,
                       const float* beta, float* y, int threads) {
  assert(p.n >= 0 && p.spatial >= 0 && p.c >= 0);
  const int64_t c = p.c, s = p.spatial;
  if (c == 0 || s == 0 || p.n == 0) return;
  // per (batch, channel): mean and 1/sqrt(var + eps) in double, two passes as the cpu kernel
  std::vector<float> mean(p.n * c), scale(p.n * c), shift(p.n * c);
  const int64_t chunk = 64, chunks = (c + chunk - 1) / chunk;
  parallel_range(threads, p.n * chunks, 1, [&](int64_t t0, int64_t t1) {
    std::vector<double> sum(chunk), sq(chunk);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / chunks, k0 = (t % chunks) * chunk;
      const int64_t k1 = k0 + chunk < c ? k0 + chunk : c, nk = k1 - k0;
      const float* xb = x + b * s * c + k0;
      for (int64_t k = 0; k < nk; ++k) sum[k] = sq[k] = 0.0;
      for (int64_t i = 0; i < s; ++i)
        for (int64_t k = 0; k < nk; ++k) sum[k] += xb[i * c + k];
      for (int64_t k = 0; k < nk; ++k) sum[k] /= static_cast<double>(s);
      for (int64_t i = 0; i < s; ++i)
        for (int64_t k = 0; k < nk; ++k) {
          const double d = xb[i * c + k] - sum[k];
          sq[k] += d * d;
        }
      for (int64_t k = 0; k < nk; ++k) {
        const int64_t ch = k0 + k;
        double a = 1.0 / std::sqrt(sq[k] / static_cast<double>(s) + p.eps);
        if (p.gamma_size > 0) a *= gamma[p.gamma_size == 1 ? 0 : ch];
        mean[b * c + ch] = static_cast<float>(sum[k]);
        scale[b * c + ch] = static_cast<float>(a);
        shift[b * c + ch] = p.beta_size > 0 ? beta[p.beta_size == 1 ? 0 : ch] : 0.0f;
      }
    }
  });
  const NormApplyFn fn = ISA_ROWS(norm_apply, norm_apply);
  const int64_t pixels = p.n * s;
  parallel_range(threads, pixels, grain_for(c), [&](int64_t b, int64_t e) {
    while (b < e) {          // a range may span batches: apply each batch's statistics
      const int64_t n = b / s, end = (n + 1) * s < e ? (n + 1) * s : e;
      fn(x + b * c, y + b * c, end - b, c, &mean[n * c], &scale[n * c], &shift[n * c], p.lo,
         p.hi);
      b = end;
    }
  });
}

void local_response_norm_f32(const float* x, float* y, int64_t pixels, int64_t c, int radius,
                             float bias, float alpha, float beta, int threads) {
  assert(pixels >= 0 && c >= 0 && radius >= 0);
  if (c == 0) return;
  const int64_t r = radius < c ? radius : c;
  parallel_range(threads, pixels, grain_for(c * (2 * r + 1)), [&](int64_t b, int64_t e) {
    std::vector<float> sq(c);
    for (int64_t i = b; i < e; ++i) {
      const float* xi = x + i * c;
      float* yi = y + i * c;
      for (int64_t k = 0; k < c; ++k) sq[k] = xi[k] * xi[k];
      for (int64_t k = 0; k < c; ++k) {
        float window = 0.0f;          // channels k - r .. k + r in ascending order
        const int64_t lo = k - r < 0 ? 0 : k - r, hi = k + r < c - 1 ? k + r : c - 1;
        for (int64_t j = lo; j <= hi; ++j) window += sq[j];
        yi[k] = xi[k] * std::pow(bias + alpha * window, -beta);
      }
    }
  });
}

}  // namespace onert_neon
