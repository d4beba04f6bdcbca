// Deterministic test data shared by the gemm group's native tests.
#pragma once

#include <cstdint>
#include <vector>

namespace onert_neon {
namespace gemm_test {

// n values in [-1, 1] in steps of 1/1000, a different sequence per seed
inline std::vector<float> seq(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>((s >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

}  // namespace gemm_test
}  // namespace onert_neon
