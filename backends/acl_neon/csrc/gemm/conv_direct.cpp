// The direct convolution (conv_direct.h): weight repacking, the baseline bodies (SSE2 on
// x86-64, NEON on aarch64) and the dispatcher that splits the output rows over threads and
// picks the AVX2 / AVX-512 bodies when the CPU has them.
#include "conv_direct.h"

#include <cassert>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "isa.h"
#include "parallel.h"
#include "simd_base.h"
#include "simd_math.h"

namespace onert_neon {
namespace {

using namespace simd;

#include "conv_direct_kernels.inc"

}  // namespace

DirectRowsFn direct_rows_fn(bool narrow) {
  switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::Avx512: return narrow ? conv_direct_rows_avx512_ymm : conv_direct_rows_avx512;
    case Isa::Avx2: return conv_direct_rows_avx2;
#endif
    default: return direct_rows;
  }
}


bool splits_512bit_ops() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u)   // "Auth" of "AuthenticAMD"
    return false;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned family = ((a >> 8) & 0xFu) + ((a >> 20) & 0xFFu);
  return family == 0x19 && detected_isa() == Isa::Avx512;
#else
  return false;
#endif
}

void pack_direct(const ConvGeom& g, const float* w, const float* bias, DirectWeights& out) {
  const int64_t taps = g.kh * g.kw * g.cin;
  out.coutp = (g.cout + 15) / 16 * 16;
  out.w.assign(static_cast<size_t>(taps * out.coutp), 0.0f);
  out.bias.assign(static_cast<size_t>(out.coutp), 0.0f);
  out.narrow = splits_512bit_ops();
  for (int64_t o = 0; o < g.cout; ++o) {
    for (int64_t t = 0; t < taps; ++t) out.w[t * out.coutp + o] = w[o * taps + t];
    if (bias) out.bias[o] = bias[o];
  }
}

void conv_direct_f32(const ConvGeom& g, const float* x, const DirectWeights& d, float* y,
                     float lo, float hi, int threads, const Epilogue* epi) {
  assert(d.coutp >= g.cout && d.coutp % 16 == 0);
  assert(d.w.size() == static_cast<size_t>(g.kh * g.kw * g.cin * d.coutp));
  const DirectRowsFn fn = direct_rows_fn(d.narrow);
  const EpilogueRowsFn epi_fn = epi ? epilogue_rows_fn() : nullptr;
  // a thread's share must be worth the fork/join: >= ~200K multiply-adds
  const int64_t row_work = g.ow * g.cout * g.kh * g.kw * g.cin;
  const int64_t grain = 1 + 200000 / (row_work + 1);
  parallel_range(threads, g.n * g.oh, grain, [&](int64_t r0, int64_t r1) {
    std::vector<DirectRun> runs(static_cast<size_t>(2 * g.kh * g.kw));
    const DirectArgs a{&g, x, d.w.data(), d.bias.data(), d.coutp, y, lo, hi, runs.data()};
    if (epi == nullptr) {
      fn(a, r0, r1);
      return;
    }
    const int64_t row = g.ow * g.cout;
    for (int64_t r = r0; r < r1; ++r) {     // each row's epilogue while the row is in L1
      fn(a, r, r + 1);
      epi_fn(*epi, y + r * row, 1, row, row);
    }
  });
}

}  // namespace onert_neon
