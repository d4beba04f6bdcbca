// Conv2D (direct GEMM on NHWC for 1x1 stride-1, im2col per row tile otherwise) and
// TransposeConv (GEMM, then every output pixel gathers its taps, adds bias, clamps).
#include <cassert>
#include <cstring>

#include "gemm.h"
#include "gemm_driver.h"
#include "parallel.h"

namespace onert_neon {
namespace {

inline void copy_floats(float* dst, const float* src, int64_t n) {
  if (n < 16) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
  }
}

inline void zero_floats(float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = 0.0f;
}

// the K = kh*kw*cin window of output pixel (bn, oy, ox), zeros where it falls on the padding
void gather_window(const ConvGeom& g, const float* x, int64_t bn, int64_t oy, int64_t ox,
                   float* dst) {
  const float* xb = x + bn * g.h * g.w * g.cin;
  const int64_t ix0 = ox * g.sw - g.pl, span = g.kw * g.cin;
  const bool cols_in = g.dw == 1 && ix0 >= 0 && ix0 + g.kw <= g.w;   // one run per window row
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = oy * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.h) {
      zero_floats(dst, span);
      dst += span;
      continue;
    }
    if (cols_in) {
      copy_floats(dst, xb + (iy * g.w + ix0) * g.cin, span);
      dst += span;
      continue;
    }
    for (int64_t j = 0; j < g.kw; ++j, dst += g.cin) {
      const int64_t ix = ox * g.sw - g.pl + j * g.dw;
      if (ix < 0 || ix >= g.w) zero_floats(dst, g.cin);
      else copy_floats(dst, xb + (iy * g.w + ix) * g.cin, g.cin);
    }
  }
}

// the windows of output pixels [m, m + rows), one row of K floats each
void gather_rows(const ConvGeom& g, const float* x, int64_t m, int rows, float* dst) {
  int64_t ox = m % g.ow, oy = (m / g.ow) % g.oh, bn = m / g.ow / g.oh;
  const int64_t K = g.kh * g.kw * g.cin;
  for (int r = 0; r < rows; ++r, dst += K) {
    gather_window(g, x, bn, oy, ox, dst);
    if (++ox == g.ow) {
      ox = 0;
      if (++oy == g.oh) { oy = 0; ++bn; }
    }
  }
}

}  // namespace

void conv2d_f32(const ConvGeom& g, const float* x, const PackedB& b, float* y, float lo,
                float hi, int threads, const Epilogue* epi) {
  assert(b.K == g.kh * g.kw * g.cin && b.N == g.cout);
  const int64_t M = g.n * g.oh * g.ow;
  const bool direct = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                      g.pl == 0 && g.oh == g.h && g.ow == g.w;
  if (direct) {
    gemm_f32(x, M, g.cin, b, y, g.cout, lo, hi, threads, epi);
    return;
  }
  const int64_t K = b.K;
  run_tiles(M, b, y, g.cout, lo, hi, threads, true,
            [&](int64_t m0, int rows, float* scratch, int64_t& lda) {
              gather_rows(g, x, m0, rows, scratch);
              lda = K;
              return static_cast<const float*>(scratch);
            }, epi);
}

void transpose_conv_f32(const ConvGeom& g, const float* x, const PackedB& b, const float* bias,
                        float* cols, float* y, float lo, float hi, int threads) {
  const int64_t N = b.N, cout = g.cout;
  assert(b.K == g.cin && N == g.kh * g.kw * cout);
  const float inf = __builtin_inff();
  gemm_f32(x, g.n * g.h * g.w, g.cin, b, cols, N, -inf, inf, threads);
  const int64_t out_rows = g.n * g.oh;
  const int64_t grain = 1 + 4096 / (g.ow * cout * g.kh * g.kw + 1);
  parallel_range(threads, out_rows, grain, [&](int64_t rb, int64_t re) {
    for (int64_t row = rb; row < re; ++row) {
      const int64_t bn = row / g.oh, oy = row % g.oh;
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        float* acc = y + (row * g.ow + ox) * cout;
        if (bias) copy_floats(acc, bias, cout);
        else zero_floats(acc, cout);
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t ty = oy + g.pt - i;
          if (ty < 0 || ty % g.sh) continue;
          const int64_t iy = ty / g.sh;
          if (iy >= g.h) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t tx = ox + g.pl - j;
            if (tx < 0 || tx % g.sw) continue;
            const int64_t ix = tx / g.sw;
            if (ix >= g.w) continue;
            const float* src = cols + ((bn * g.h + iy) * g.w + ix) * N + (i * g.kw + j) * cout;
            for (int64_t o = 0; o < cout; ++o) acc[o] += src[o];
          }
        }
        for (int64_t o = 0; o < cout; ++o)
          acc[o] = acc[o] < lo ? lo : (acc[o] > hi ? hi : acc[o]);
      }
    }
  });
}

}  // namespace onert_neon
