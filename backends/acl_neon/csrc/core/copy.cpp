#include "copy.h"

#include <cassert>
#include <cstring>

#include "parallel.h"

namespace onert_neon {

void copy_bytes(const void* src, void* dst, int64_t n, int threads) {
  assert(n >= 0 && (n == 0 || (src != nullptr && dst != nullptr)));
  if (src == dst || n == 0) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  // below ~1 MiB one thread is faster than waking others
  parallel_range(threads, n, int64_t{1} << 20,
                 [&](int64_t b, int64_t e) { std::memmove(d + b, s + b, e - b); });
}

}  // namespace onert_neon
