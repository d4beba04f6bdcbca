// The eltwise kernels for the baseline ISA (SSE2 on x86-64, NEON on aarch64) and the
// dispatch on active_isa().
#include "eltwise.h"

#include <cassert>

#include "isa.h"
#include "simd_base.h"
#define ONERT_ELTWISE_SUFFIX base
#include "impl_all.h"

namespace onert_neon {
namespace eltwise {

#if defined(__x86_64__)
#define ONERT_DISPATCH(name, ...)                                 \
  switch (active_isa()) {                                         \
    case Isa::Avx512: return name##_avx512(__VA_ARGS__);          \
    case Isa::Avx2: return name##_avx2(__VA_ARGS__);              \
    default: return name##_base(__VA_ARGS__);                     \
  }
#else
#define ONERT_DISPATCH(name, ...) return name##_base(__VA_ARGS__);
#endif

void binary(const BinaryParams& p, const float* a, const float* b, void* out, int threads) {
  assert(p.rank >= 1 && p.rank <= kMaxRank && p.op >= 0 && p.op < kBinOpCount);
  ONERT_DISPATCH(binary, p, a, b, out, threads)
}

void unary(const UnaryParams& p, const float* x, float* y, int64_t n, int threads) {
  assert(n >= 0 && p.op >= 0 && p.op < kUnOpCount);
  ONERT_DISPATCH(unary, p, x, y, n, threads)
}

void softmax(const float* x, float* y, int64_t rows, int64_t n, float beta, int threads) {
  assert(rows >= 0 && n >= 1);
  ONERT_DISPATCH(softmax, x, y, rows, n, beta, threads)
}

void reduce(const ReduceParams& p, const float* x, float* y, int threads) {
  assert(p.nk >= 0 && p.nr >= 0 && p.nk <= kMaxRank && p.nr <= kMaxRank);
  assert(p.inner_kept ? p.nk >= 1 : p.nr >= 1);
  ONERT_DISPATCH(reduce, p, x, y, threads)
}

void argminmax(const float* x, void* out, bool out64, int64_t outer, int64_t len,
               int64_t inner, bool is_max, int threads) {
  assert(len >= 1 && len <= (int64_t{1} << 24) && outer >= 0 && inner >= 1);
  ONERT_DISPATCH(argminmax, x, out, out64, outer, len, inner, is_max, threads)
}

}  // namespace eltwise
}  // namespace onert_neon
