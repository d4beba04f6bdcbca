// Storage for packed weights in transparent huge pages (Linux), shared by the plans of every
// session in the process: each run streams all of a model's weights (MobileNetV2's 14 MB), and
// in 4 KiB pages that is 3,500 TLB entries, more than Zen 4's L2 TLB holds; in 2 MiB pages, 7.
// Buffers of at least kHugeMin bytes are bump-allocated from 2 MiB-aligned chunks madvised
// MADV_HUGEPAGE (the system's THP setting "madvise", this project's machine, gives them huge
// pages; "never" keeps 4 KiB pages, the same memory); a chunk is unmapped when its last buffer
// is freed and it is not the one being filled. Smaller buffers come from operator new.
// Measured (two sessions of a model in one process, one with its weights in 4 KiB pages,
// alternating, Zen 4): MobileNetV2 float 4% faster at 1 thread, 5-7% at 2; EfficientNet-B0
// 2% / 4%; pose_detection 2% / 2%; MobileNetV2 int8 (its 1x1 and im2col weights) 3% / 1%.
#pragma once

#include <cstddef>

namespace onert_neon {

void* weights_alloc(size_t bytes);           // 64-byte aligned, never null (throws bad_alloc)
void weights_free(void* p, size_t bytes);

// std::vector<T, WeightsAllocator<T>>: packed weights (gemm.h's PackedB, DirectWeights)
template <class T>
struct WeightsAllocator {
  using value_type = T;
  WeightsAllocator() = default;
  template <class U>
  WeightsAllocator(const WeightsAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(weights_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { weights_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const WeightsAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const WeightsAllocator<U>&) const { return false; }
};

}  // namespace onert_neon
