#include "strided_copy.h"

#include <cassert>
#include <cstring>

#include "parallel.h"

namespace onert_neon {

namespace {

constexpr int64_t kTile = 16;                  // elements per side of a transpose tile
constexpr int64_t kTaskBytes = int64_t{1} << 16;   // work below this is not split further

inline int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

// Walks the flattened index space of some outer dims, keeping both byte offsets.
struct Odometer {
  int nd = 0;
  int64_t shape[kMaxCopyDims], ss[kMaxCopyDims], ds[kMaxCopyDims], idx[kMaxCopyDims];
  int64_t so = 0, dof = 0;

  void add(int64_t n, int64_t s, int64_t d) {
    shape[nd] = n; ss[nd] = s; ds[nd] = d; ++nd;
  }
  int64_t count() const {
    int64_t c = 1;
    for (int i = 0; i < nd; ++i) c *= shape[i];
    return c;
  }
  void seek(int64_t flat) {
    so = dof = 0;
    for (int i = nd - 1; i >= 0; --i) {
      int64_t q = flat / shape[i];
      idx[i] = flat - q * shape[i];
      flat = q;
      so += idx[i] * ss[i];
      dof += idx[i] * ds[i];
    }
  }
  void next() {
    for (int i = nd - 1; i >= 0; --i) {
      ++idx[i]; so += ss[i]; dof += ds[i];
      if (idx[i] < shape[i]) return;
      so -= ss[i] * shape[i]; dof -= ds[i] * shape[i]; idx[i] = 0;
    }
  }
};

template <class T>
inline void move_run(const char* s, int64_t ss, char* d, int64_t ds, int64_t n) {
  for (int64_t i = 0; i < n; ++i, s += ss, d += ds) {
    T v;
    std::memcpy(&v, s, sizeof(T));
    std::memcpy(d, &v, sizeof(T));
  }
}

void move_elems(int elem, const char* s, int64_t ss, char* d, int64_t ds, int64_t n) {
  switch (elem) {
    case 1: move_run<uint8_t>(s, ss, d, ds, n); break;
    case 2: move_run<uint16_t>(s, ss, d, ds, n); break;
    case 4: move_run<uint32_t>(s, ss, d, ds, n); break;
    default: move_run<uint64_t>(s, ss, d, ds, n); break;
  }
}

template <class T>
inline void fill_run(const void* value, char* d, int64_t ds, int64_t n) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  if (ds == static_cast<int64_t>(sizeof(T)) &&
      reinterpret_cast<uintptr_t>(d) % sizeof(T) == 0) {
    T* p = reinterpret_cast<T*>(d);
    for (int64_t i = 0; i < n; ++i) p[i] = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i, d += ds) std::memcpy(d, &v, sizeof(T));
}

void fill_elems(int elem, const void* value, char* d, int64_t ds, int64_t n) {
  switch (elem) {
    case 1:
      if (ds == 1) std::memset(d, *static_cast<const uint8_t*>(value), n);
      else fill_run<uint8_t>(value, d, ds, n);
      break;
    case 2: fill_run<uint16_t>(value, d, ds, n); break;
    case 4: fill_run<uint32_t>(value, d, ds, n); break;
    default: fill_run<uint64_t>(value, d, ds, n); break;
  }
}

// The dim (not the innermost) that is contiguous in the source, or -1.
int source_contiguous_dim(const StridedRegion& r) {
  for (int k = 0; k + 1 < r.nd; ++k)
    if (r.src_stride[k] == r.elem) return k;
  return -1;
}

// One tile: rows kk in [k0, k1) of the destination, jn elements each (destination
// contiguous), read with source stride sj (source contiguous along kk).
template <class T>
void copy_tile(const char* src, int64_t sk, int64_t sj, char* dst, int64_t dk, int64_t k0,
               int64_t k1, int64_t jn) {
  for (int64_t kk = k0; kk < k1; ++kk) {
    const char* s = src + kk * sk;
    char* d = dst + kk * dk;
    for (int64_t jj = 0; jj < jn; ++jj) std::memcpy(d + jj * sizeof(T), s + jj * sj, sizeof(T));
  }
}

// Transpose-like copy: destination contiguous along the last dim (j), source along dim k.
// Each task takes kTile destination columns (a contiguous block of source rows) and walks
// all of k in kTile x kTile tiles, so the source is read once, in whole cache lines, and
// every destination cache line is written whole.
void tiled_copy(const StridedRegion& r, int k, const char* src, char* dst, int threads) {
  const int last = r.nd - 1;
  Odometer outer;
  for (int i = 0; i < last; ++i)
    if (i != k) outer.add(r.shape[i], r.src_stride[i], r.dst_stride[i]);
  const int64_t nk = r.shape[k], nj = r.shape[last];
  const int64_t jblocks = (nj + kTile - 1) / kTile;
  const int64_t tasks = outer.count() * jblocks;
  const int64_t task_bytes = kTile * nk * r.elem;
  const int64_t grain = task_bytes >= kTaskBytes ? 1 : kTaskBytes / task_bytes;
  const int64_t sk = r.src_stride[k], dk = r.dst_stride[k];
  const int64_t sj = r.src_stride[last], dj = r.dst_stride[last];
  const int elem = r.elem;
  parallel_range(threads, tasks, grain, [&](int64_t b, int64_t e) {
    Odometer od = outer;
    for (int64_t t = b; t < e; ++t) {
      od.seek(t / jblocks);
      const int64_t j0 = (t % jblocks) * kTile;
      const int64_t jn = j0 + kTile < nj ? kTile : nj - j0;
      const char* s = src + od.so + j0 * sj;
      char* d = dst + od.dof + j0 * dj;
      for (int64_t k0 = 0; k0 < nk; k0 += kTile) {
        const int64_t k1 = k0 + kTile < nk ? k0 + kTile : nk;
        switch (elem) {
          case 1: copy_tile<uint8_t>(s, sk, sj, d, dk, k0, k1, jn); break;
          case 2: copy_tile<uint16_t>(s, sk, sj, d, dk, k0, k1, jn); break;
          case 4: copy_tile<uint32_t>(s, sk, sj, d, dk, k0, k1, jn); break;
          default: copy_tile<uint64_t>(s, sk, sj, d, dk, k0, k1, jn); break;
        }
      }
    }
  });
}

}  // namespace

bool normalize_region(StridedRegion& r) {
  assert(r.nd >= 0 && r.nd <= kMaxCopyDims);
  assert(r.elem == 1 || r.elem == 2 || r.elem == 4 || r.elem == 8);
  int n = 0;
  for (int i = 0; i < r.nd; ++i) {
    if (r.shape[i] <= 0) return false;
    if (r.shape[i] == 1) continue;
    r.shape[n] = r.shape[i];
    r.src_stride[n] = r.src_stride[i];
    r.dst_stride[n] = r.dst_stride[i];
    ++n;
  }
  // stable insertion sort: largest destination stride first
  for (int i = 1; i < n; ++i) {
    int64_t sh = r.shape[i], s = r.src_stride[i], d = r.dst_stride[i];
    int j = i;
    for (; j > 0 && abs64(r.dst_stride[j - 1]) < abs64(d); --j) {
      r.shape[j] = r.shape[j - 1];
      r.src_stride[j] = r.src_stride[j - 1];
      r.dst_stride[j] = r.dst_stride[j - 1];
    }
    r.shape[j] = sh; r.src_stride[j] = s; r.dst_stride[j] = d;
  }
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && r.src_stride[m - 1] == r.src_stride[i] * r.shape[i] &&
        r.dst_stride[m - 1] == r.dst_stride[i] * r.shape[i]) {
      r.shape[m - 1] *= r.shape[i];
      r.src_stride[m - 1] = r.src_stride[i];
      r.dst_stride[m - 1] = r.dst_stride[i];
      continue;
    }
    r.shape[m] = r.shape[i];
    r.src_stride[m] = r.src_stride[i];
    r.dst_stride[m] = r.dst_stride[i];
    ++m;
  }
  if (m == 0) {
    r.shape[0] = 1;
    r.src_stride[0] = r.dst_stride[0] = r.elem;
    m = 1;
  }
  r.nd = m;
  return true;
}

void strided_copy(const StridedRegion& r, const void* src_v, void* dst_v, int threads) {
  assert(r.nd >= 1 && r.nd <= kMaxCopyDims);
  const char* src = static_cast<const char*>(src_v);
  char* dst = static_cast<char*>(dst_v);
  const int last = r.nd - 1;
  const int64_t n = r.shape[last], elem = r.elem;
  if (r.src_stride[last] == elem && r.dst_stride[last] == elem) {
    const int64_t row = n * elem;
    Odometer outer;
    for (int i = 0; i < last; ++i) outer.add(r.shape[i], r.src_stride[i], r.dst_stride[i]);
    const int64_t count = outer.count();
    if (count == 1) {
      parallel_range(threads, row, int64_t{1} << 20,
                     [&](int64_t b, int64_t e) { std::memcpy(dst + b, src + b, e - b); });
      return;
    }
    const int64_t grain = row >= kTaskBytes ? 1 : kTaskBytes / row;
    parallel_range(threads, count, grain, [&](int64_t b, int64_t e) {
      Odometer od = outer;
      od.seek(b);
      for (int64_t o = b; o < e; ++o, od.next()) std::memcpy(dst + od.dof, src + od.so, row);
    });
    return;
  }
  const int k = r.dst_stride[last] == elem ? source_contiguous_dim(r) : -1;
  if (k >= 0) {
    tiled_copy(r, k, src, dst, threads);
    return;
  }
  Odometer outer;
  for (int i = 0; i < last; ++i) outer.add(r.shape[i], r.src_stride[i], r.dst_stride[i]);
  const int64_t row = n * elem;
  const int64_t grain = row >= kTaskBytes ? 1 : kTaskBytes / row;
  const int64_t sj = r.src_stride[last], dj = r.dst_stride[last];
  parallel_range(threads, outer.count(), grain, [&](int64_t b, int64_t e) {
    Odometer od = outer;
    od.seek(b);
    for (int64_t o = b; o < e; ++o, od.next())
      move_elems(r.elem, src + od.so, sj, dst + od.dof, dj, n);
  });
}

void strided_fill(const StridedRegion& r, const void* value, void* dst_v, int threads) {
  assert(r.nd >= 1 && r.nd <= kMaxCopyDims);
  char* dst = static_cast<char*>(dst_v);
  const int last = r.nd - 1;
  const int64_t n = r.shape[last];
  Odometer outer;
  for (int i = 0; i < last; ++i) outer.add(r.shape[i], 0, r.dst_stride[i]);
  const int64_t row = n * r.elem;
  const int64_t dj = r.dst_stride[last];
  if (outer.count() == 1 && dj == r.elem) {
    parallel_range(threads, n, (int64_t{1} << 20) / r.elem, [&](int64_t b, int64_t e) {
      fill_elems(r.elem, value, dst + b * dj, dj, e - b);
    });
    return;
  }
  const int64_t grain = row >= kTaskBytes ? 1 : kTaskBytes / row;
  parallel_range(threads, outer.count(), grain, [&](int64_t b, int64_t e) {
    Odometer od = outer;
    od.seek(b);
    for (int64_t o = b; o < e; ++o, od.next()) fill_elems(r.elem, value, dst + od.dof, dj, n);
  });
}

}  // namespace onert_neon
