// Tests of the lookup group: HASHTABLE_LOOKUP against a linear search, threads 1 and 2, and
// the probes of TFLite's bisection on unsorted keys; test_main runs them at every ISA level.
#include <cstdint>
#include <vector>

#include "lookup.h"
#include "testing.h"

using namespace onert_neon;

NEON_TEST(lookup_hashtable_lookup) {
  const int32_t keys[] = {-7, 0, 3, 4, 9, 100, 2147483647};
  const int64_t nk = 7, row = 5;
  std::vector<uint8_t> values(nk * row);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 3 + 1);
  for (int threads : {1, 2}) {
    const int32_t look[] = {3, 5, -7, 2147483647, -2147483647 - 1, 100, 0, 1, 9};
    const int64_t nl = 9;
    std::vector<uint8_t> out(nl * row, 0xAB), hits(nl, 7);
    hashtable_lookup({look, nl, keys, nk, values.data(), row, out.data(), hits.data()}, threads);
    for (int64_t i = 0; i < nl; ++i) {
      int64_t want = -1;
      for (int64_t k = 0; k < nk; ++k)
        if (keys[k] == look[i]) want = k;
      CHECK(hits[i] == (want >= 0 ? 1 : 0));
      for (int64_t j = 0; j < row; ++j)
        CHECK(out[i * row + j] == (want >= 0 ? values[want * row + j] : 0));
    }
  }
  // unsorted keys: the same probes as a bisection (found only on its path)
  const int32_t unsorted[] = {5, 1, 9, 2};
  CHECK(lookup_index(unsorted, 4, 9) == 2);
  CHECK(lookup_index(unsorted, 4, 1) == 1);
  CHECK(lookup_index(unsorted, 4, 5) == -1);   // present, off the path
  CHECK(lookup_index(unsorted, 0, 1) == -1);
}
