// N-d strided copies and fills: the one kernel behind the data-movement ops (Transpose,
// Slice, StridedSlice, Concat, Split, Pack, Unpack, Pad, SpaceToDepth, DepthToSpace,
// SpaceToBatchND, BatchToSpaceND). The Python side describes each output region as a view
// (shape + byte strides) of an input; this code copies it.
//
// No AVX/NEON variants: contiguous runs go through memcpy/memset (already vectorized by the C
// library on every ISA), transposed runs are cache-tiled scalar moves whose cost is the memory
// traffic, not the instructions.
#pragma once

#include <cstdint>

namespace onert_neon {

constexpr int kMaxCopyDims = 12;

// A region of `shape` elements of `elem` bytes (1, 2, 4 or 8); strides in bytes, signed.
struct StridedRegion {
  int nd = 0;
  int elem = 1;
  int64_t shape[kMaxCopyDims] = {};
  int64_t src_stride[kMaxCopyDims] = {};   // unused by fills
  int64_t dst_stride[kMaxCopyDims] = {};
};

// Drops unit dims, orders dims by destination stride (largest first), merges dims that are
// contiguous in both source and destination. Returns false when the region is empty.
bool normalize_region(StridedRegion& r);

// dst[i...] = src[i...] over a normalized region; src/dst point at element (0, ..., 0).
void strided_copy(const StridedRegion& r, const void* src, void* dst, int threads);

// dst[i...] = value (elem bytes) over a normalized region.
void strided_fill(const StridedRegion& r, const void* value, void* dst, int threads);

}  // namespace onert_neon
