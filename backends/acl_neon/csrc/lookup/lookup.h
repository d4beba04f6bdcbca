// HASHTABLE_LOOKUP of acl_neon: each lookup key is binary-searched among `n_keys` int32 keys
// (TFLite's bsearch with its comparator: the int32 difference, wrapping) and its value row
// (row_bytes bytes) copied to the output, or zeros; hits[i] = 1 when found, else 0.
#pragma once

#include <cstdint>

namespace onert_neon {

struct LookupArgs {
  const int32_t* lookup;
  int64_t n_lookup;
  const int32_t* keys;
  int64_t n_keys;
  const uint8_t* values;   // n_keys rows of row_bytes
  int64_t row_bytes;
  uint8_t* out;            // n_lookup rows of row_bytes
  uint8_t* hits;           // n_lookup
};

// The index of `key` among keys[0:n] as TFLite's bsearch finds it, or -1.
int64_t lookup_index(const int32_t* keys, int64_t n, int32_t key);

void hashtable_lookup(const LookupArgs& a, int threads);

}  // namespace onert_neon
