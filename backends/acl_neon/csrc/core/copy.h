// Byte copies: Reshape, Squeeze and ExpandDims move a tensor's bytes unchanged.
#pragma once

#include <cstdint>

namespace onert_neon {

// dst[0:n] = src[0:n], split over `threads` when large
void copy_bytes(const void* src, void* dst, int64_t n, int threads);

}  // namespace onert_neon
