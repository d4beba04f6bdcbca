// Packed weights in 2 MiB-aligned chunks madvised MADV_HUGEPAGE (weights_alloc.h).
#include "weights_alloc.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace onert_neon {
namespace {

constexpr size_t kHugeMin = 64 * 1024;         // smaller buffers: operator new
constexpr size_t kHuge = 2 * 1024 * 1024;      // the huge page size
constexpr size_t kChunk = 4 * kHuge;           // bump-allocated chunk (larger buffers: their own)
constexpr size_t kAlign = 64;

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

struct Chunk {
  char* base;       // 2 MiB aligned
  size_t size;      // multiple of 2 MiB
  size_t used;      // bump offset
  size_t live;      // buffers not yet freed
  void* map;        // the mapping (base rounded down) and its length, to unmap
  size_t map_len;
};

#if defined(__linux__)
// A mapping of `size` bytes (a multiple of 2 MiB) starting on a 2 MiB boundary, or nullptr.
bool map_chunk(size_t size, Chunk& c) {
  const size_t len = size + kHuge;
  void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return false;
  char* base = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(m), kHuge));
  madvise(base, size, MADV_HUGEPAGE);     // advice only: without THP, 4 KiB pages
  c = Chunk{base, size, 0, 0, m, len};
  return true;
}
void unmap_chunk(const Chunk& c) { munmap(c.map, c.map_len); }
#endif

struct Pool {
  std::mutex mu;
  std::vector<Chunk> chunks;     // the last one is being filled
};

// leaked on purpose: plans held by Python objects may be freed after static destructors ran
Pool* g_pool = new Pool;

}  // namespace

void* weights_alloc(size_t bytes) {
#if defined(__linux__)
  if (bytes >= kHugeMin) {
    const size_t need = round_up(bytes, kAlign);
    std::lock_guard<std::mutex> lk(g_pool->mu);
    auto& cs = g_pool->chunks;
    Chunk c;
    if (need >= kChunk) {              // a chunk of its own, before the one being filled
      if (!map_chunk(round_up(need, kHuge), c)) throw std::bad_alloc();
      c.used = need;
      c.live = 1;
      cs.insert(cs.empty() ? cs.end() : cs.end() - 1, c);
      return c.base;
    }
    if (cs.empty() || cs.back().size - cs.back().used < need) {
      if (!map_chunk(kChunk, c)) throw std::bad_alloc();
      cs.push_back(c);
    }
    Chunk& fill = cs.back();
    void* p = fill.base + fill.used;
    fill.used += need;
    ++fill.live;
    return p;
  }
#endif
  return ::operator new(bytes, std::align_val_t(kAlign));
}

void weights_free(void* p, size_t bytes) {
  if (p == nullptr) return;
#if defined(__linux__)
  if (bytes >= kHugeMin) {
    std::lock_guard<std::mutex> lk(g_pool->mu);
    auto& cs = g_pool->chunks;
    const char* q = static_cast<const char*>(p);
    const auto it = std::find_if(cs.begin(), cs.end(), [q](const Chunk& c) {
      return q >= c.base && q < c.base + c.size;
    });
    assert(it != cs.end());            // every buffer of this size lies in a chunk
    if (--it->live == 0) {
      if (it + 1 != cs.end()) {        // empty and not the one being filled: unmapped
        unmap_chunk(*it);
        cs.erase(it);
      } else {
        it->used = 0;                  // the one being filled: started over
      }
    }
    return;
  }
#endif
  ::operator delete(p, std::align_val_t(kAlign));
}

}  // namespace onert_neon
