#include "gather.h"

#include <cassert>
#include <cstring>

#include "parallel.h"

namespace onert_neon {

namespace {

template <class I>
int64_t first_bad(const I* idx, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || static_cast<int64_t>(idx[i]) >= limit) return i;
  return -1;
}

template <class I>
void gather_typed(const GatherParams& p, const char* src, const I* idx, char* dst,
                  int threads) {
  const int64_t rows = p.batch * p.outer * p.n_idx, rb = p.row_bytes;
  const int64_t grain = rb >= (int64_t{1} << 16) ? 1 : (int64_t{1} << 16) / (rb + 1) + 1;
  parallel_range(threads, rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t j = r % p.n_idx, bo = r / p.n_idx, bi = bo / p.outer;
      const int64_t i = static_cast<int64_t>(idx[bi * p.n_idx + j]);
      std::memcpy(dst + r * rb, src + (bo * p.limit + i) * rb, rb);
    }
  });
}

template <class I>
void one_hot_typed(const OneHotParams& p, const I* idx, const char* on, const char* off,
                   char* out, int threads) {
  const int64_t plane = p.depth * p.inner, es = p.elem;
  const int64_t grain = plane * es >= (int64_t{1} << 16) ? 1 : (int64_t{1} << 16) / (plane * es + 1) + 1;
  parallel_range(threads, p.outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      char* base = out + o * plane * es;
      for (int64_t k = 0; k < plane; ++k) std::memcpy(base + k * es, off, es);
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t d = static_cast<int64_t>(idx[o * p.inner + i]);
        if (d >= 0 && d < p.depth) std::memcpy(base + (d * p.inner + i) * es, on, es);
      }
    }
  });
}

}  // namespace

int64_t index_at(const void* idx, int idx_bytes, int64_t pos) {
  switch (idx_bytes) {
    case 2: return static_cast<const int16_t*>(idx)[pos];
    case 4: return static_cast<const int32_t*>(idx)[pos];
    default: return static_cast<const int64_t*>(idx)[pos];
  }
}

int64_t gather_rows(const GatherParams& p, const void* params, const void* idx, int idx_bytes,
                    void* out, int threads) {
  assert(idx_bytes == 2 || idx_bytes == 4 || idx_bytes == 8);
  assert(p.batch >= 0 && p.outer >= 0 && p.limit >= 0 && p.n_idx >= 0 && p.row_bytes >= 0);
  const int64_t n = p.batch * p.n_idx;
  const char* src = static_cast<const char*>(params);
  char* dst = static_cast<char*>(out);
  int64_t bad;
  switch (idx_bytes) {
    case 2: bad = first_bad(static_cast<const int16_t*>(idx), n, p.limit); break;
    case 4: bad = first_bad(static_cast<const int32_t*>(idx), n, p.limit); break;
    default: bad = first_bad(static_cast<const int64_t*>(idx), n, p.limit); break;
  }
  if (bad >= 0) return bad;
  if (p.outer == 0 || p.row_bytes == 0) return -1;
  switch (idx_bytes) {
    case 2: gather_typed(p, src, static_cast<const int16_t*>(idx), dst, threads); break;
    case 4: gather_typed(p, src, static_cast<const int32_t*>(idx), dst, threads); break;
    default: gather_typed(p, src, static_cast<const int64_t*>(idx), dst, threads); break;
  }
  return -1;
}

void one_hot(const OneHotParams& p, const void* idx, int idx_bytes, const void* on,
             const void* off, void* out, int threads) {
  assert(idx_bytes == 4 || idx_bytes == 8);
  const char* a = static_cast<const char*>(on);
  const char* b = static_cast<const char*>(off);
  char* dst = static_cast<char*>(out);
  if (idx_bytes == 4)
    one_hot_typed(p, static_cast<const int32_t*>(idx), a, b, dst, threads);
  else
    one_hot_typed(p, static_cast<const int64_t*>(idx), a, b, dst, threads);
}

}  // namespace onert_neon
