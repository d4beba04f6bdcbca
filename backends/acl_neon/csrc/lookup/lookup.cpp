// HASHTABLE_LOOKUP: binary search + row copies (memory-bound: portable code only).
#include "lookup.h"

#include <cstring>

#include "parallel.h"

namespace onert_neon {

int64_t lookup_index(const int32_t* keys, int64_t n, int32_t key) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    // TFLite's comparator returns key - keys[mid] as an int: the difference wraps
    const int32_t cmp = static_cast<int32_t>(static_cast<uint32_t>(key) -
                                             static_cast<uint32_t>(keys[mid]));
    if (cmp < 0) hi = mid;
    else if (cmp > 0) lo = mid + 1;
    else return mid;
  }
  return -1;
}

void hashtable_lookup(const LookupArgs& a, int threads) {
  const int64_t grain = a.row_bytes >= 4096 ? 1 : 4096 / (a.row_bytes + 16) + 1;
  parallel_range(threads, a.n_lookup, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t idx = lookup_index(a.keys, a.n_keys, a.lookup[i]);
      uint8_t* dst = a.out + i * a.row_bytes;
      if (idx < 0) {
        std::memset(dst, 0, static_cast<size_t>(a.row_bytes));
        a.hits[i] = 0;
      } else {
        std::memcpy(dst, a.values + idx * a.row_bytes, static_cast<size_t>(a.row_bytes));
        a.hits[i] = 1;
      }
    }
  });
}

}  // namespace onert_neon
