// The packed-weights allocator (common/weights_alloc.h): alignment, distinct writable buffers
// of every size class (operator new, a shared chunk, a chunk of its own), and reuse after
// everything is freed.
#include <cstdint>
#include <cstring>
#include <vector>

#include "testing.h"
#include "weights_alloc.h"

using namespace onert_neon;

NEON_TEST(weights_alloc_sizes_and_reuse) {
  const size_t sizes[] = {100, 4096, 64 * 1024, 300 * 1024, 1 << 20, 3 << 20, 9 << 20, 70000};
  for (int round = 0; round < 3; ++round) {
    std::vector<std::pair<char*, size_t>> bufs;
    for (size_t s : sizes) {
      char* p = static_cast<char*>(weights_alloc(s));
      CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
      std::memset(p, static_cast<int>(bufs.size() + 1), s);
      bufs.emplace_back(p, s);
    }
#if defined(__linux__)
    // a buffer larger than a chunk has a 2 MiB-aligned chunk of its own
    CHECK(reinterpret_cast<uintptr_t>(bufs[6].first) % (2 << 20) == 0);
#endif
    for (size_t i = 0; i < bufs.size(); ++i) {           // none overlaps another
      const char* p = bufs[i].first;
      bool intact = true;
      for (size_t k = 0; k < bufs[i].second; k += 4093)
        intact = intact && p[k] == static_cast<char>(i + 1);
      CHECK(intact && p[bufs[i].second - 1] == static_cast<char>(i + 1));
    }
    for (auto& [p, s] : bufs) weights_free(p, s);          // every chunk empty: reused
  }
  std::vector<float, WeightsAllocator<float>> v(200000, 1.5f);
  v.assign(300000, 2.5f);
  CHECK(v.size() == 300000 && v[299999] == 2.5f);
}
