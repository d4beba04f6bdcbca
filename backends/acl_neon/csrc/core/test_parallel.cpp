// The worker pool (common/parallel.h): every item run exactly once, slots below the call's
// thread count, nested calls, two callers at once, and many small jobs back to back (ranges
// claimed by late workers must never run twice or be lost).
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "parallel.h"
#include "testing.h"

using namespace onert_neon;

namespace {

// parallel_range over n items: each item counted once, every range's slot < threads
bool covers_once(int threads, int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  for (auto& h : hits) h = 0;
  std::atomic<bool> slots_ok{true};
  parallel_range(threads, n, grain, [&](int64_t b, int64_t e) {
    const int s = parallel_slot();
    if (s < 0 || s >= (threads < 1 ? 1 : threads)) slots_ok = false;
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
  });
  for (auto& h : hits)
    if (h != 1) return false;
  return slots_ok;
}

}  // namespace

NEON_TEST(parallel_range_covers_every_item_once) {
  for (int threads : {0, 1, 2, 3, 5})
    for (int64_t n : {1, 2, 3, 7, 64, 1001})
      for (int64_t grain : {1, 3, 100}) CHECK(covers_once(threads, n, grain));
}

NEON_TEST(parallel_range_back_to_back_jobs) {
  for (int round = 0; round < 3000; ++round) CHECK(covers_once(2 + round % 3, 1 + round % 17, 1));
}

NEON_TEST(parallel_range_nested_and_concurrent_callers) {
  std::atomic<int64_t> total{0};
  parallel_range(2, 4, 1, [&](int64_t b, int64_t e) {   // nested: the inner calls run serially
    const int outer = parallel_slot();
    for (int64_t i = b; i < e; ++i)
      parallel_range(2, 10, 1, [&](int64_t ib, int64_t ie) { total += ie - ib; });
    CHECK(parallel_slot() == outer);                     // the slot survives the inner call
  });
  CHECK(total == 40);
  std::atomic<bool> ok{true};
  auto caller = [&] {
    for (int r = 0; r < 500; ++r)
      if (!covers_once(2, 33, 1)) ok = false;
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  CHECK(ok);
}
