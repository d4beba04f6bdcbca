#include <cstdint>
#include <vector>

#include "copy.h"
#include "testing.h"

using namespace onert_neon;

NEON_TEST(copy_bytes_small_and_threaded) {
  for (int64_t n : {0, 1, 17, 3 << 20}) {
    std::vector<uint8_t> src(n), dst(n, 0);
    for (int64_t i = 0; i < n; ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
    copy_bytes(src.data(), dst.data(), n, 2);
    CHECK(src == dst);
  }
}
