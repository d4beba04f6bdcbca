// Gather (GATHER, EMBEDDING_LOOKUP) and ONE_HOT: rows of bytes selected by index tensors.
// Plain memcpy of rows; no ISA variants (the copies are memory-bound, memcpy is vectorized).
#pragma once

#include <cstdint>

namespace onert_neon {

// out[b, o, j, :] = params[b, o, idx[b, j], :], rows of row_bytes bytes; params is
// [batch, outer, limit, row], idx [batch, n_idx], out [batch, outer, n_idx, row].
struct GatherParams {
  int64_t batch = 1, outer = 1, limit = 0, n_idx = 0, row_bytes = 0;
};

// The position of the first index outside [0, limit) or -1 (nothing is written then);
// idx_bytes is 2, 4 or 8 (int16, int32, int64 indices). Returns -1 after gathering.
int64_t gather_rows(const GatherParams& p, const void* params, const void* idx, int idx_bytes,
                    void* out, int threads);

// The value of index `pos` as int64 (for error messages).
int64_t index_at(const void* idx, int idx_bytes, int64_t pos);

// out[o, d, i] = idx[o, i] == d ? on : off, elements of `elem` bytes; out [outer, depth, inner].
struct OneHotParams {
  int64_t outer = 1, depth = 0, inner = 1;
  int elem = 4;
};

void one_hot(const OneHotParams& p, const void* idx, int idx_bytes, const void* on,
             const void* off, void* out, int threads);

}  // namespace onert_neon
