// Quantized MEAN: int32 column sums (the compiler vectorizes the contiguous inner loop) and the
// exact int64 rescale per output.
#include "qmean.h"

#include <cassert>
#include <vector>

#include "parallel.h"
#include "qfixed.h"

namespace onert_neon {
namespace quant {

namespace {

template <class T>
void sums(const T* __restrict x, int64_t count, int64_t inner, int32_t* __restrict acc,
          int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) acc[c - c0] = 0;
  for (int64_t k = 0; k < count; ++k) {
    const T* __restrict row = x + k * inner;
    for (int64_t c = c0; c < c1; ++c) acc[c - c0] += row[c];
  }
}

}  // namespace

void qmean(const MeanParams& p, const uint8_t* x, uint8_t* out, int threads) {
  assert(p.count * 510 < (int64_t{1} << 31) && p.shift >= -31 && p.shift <= 31);
  const int32_t left = p.shift > 0 ? p.shift : 0, right = p.shift < 0 ? -p.shift : 0;
  const int64_t cblk = 256;                  // channels per work item
  const int64_t nblk = (p.inner + cblk - 1) / cblk, items = p.outer * nblk;
  parallel_range(threads, items, 1 + (1 << 15) / (p.count * cblk + 1), [&](int64_t b, int64_t e) {
    int32_t acc[256];
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / nblk, c0 = it % nblk * cblk;
      const int64_t c1 = c0 + cblk < p.inner ? c0 + cblk : p.inner;
      const uint8_t* xo = x + o * p.count * p.inner;
      if (p.x_signed)
        sums(reinterpret_cast<const int8_t*>(xo), p.count, p.inner, acc, c0, c1);
      else
        sums(xo, p.count, p.inner, acc, c0, c1);
      for (int64_t c = c0; c < c1; ++c) {
        int64_t v;
        if (p.hw) {
          const int64_t h = srdhm(wrap32(int64_t{acc[c - c0]} << left), p.m);
          v = (c < p.vec ? rshift_half_up(h, right) : rdbp(h, right)) + p.offset;
        } else {
          const int64_t t = wrap32((int64_t{acc[c - c0]} - p.offset) << left);
          v = rdbp(srdhm(t, p.m), right) + p.out_zp;
        }
        v = v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
        out[o * p.inner + c] = static_cast<uint8_t>(v & 0xFF);
      }
    }
  });
}

}  // namespace quant
}  // namespace onert_neon
