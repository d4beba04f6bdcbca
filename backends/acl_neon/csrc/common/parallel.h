// Threading for the acl_neon kernels: one process-wide pool of worker threads (parallel.cpp),
// with the thread count passed by each call (the session's `num_threads`), so sessions with
// different counts do not disturb each other.
//
// A call splits its items into at most `threads` contiguous ranges. The calling thread runs
// ranges too, and every range is claimed from an atomic counter by whichever thread gets to it
// first: a worker that is late (its core held by another process, or still waking from sleep)
// leaves its range to the caller, and the call returns once every range is done, without
// waiting for every worker to arrive (an OpenMP region's closing barrier does wait, which
// stalls a whole model under CPU contention). Workers spin briefly after each job, then sleep.
// The approach is pthreadpool's (XNNPACK's pool): the caller takes part, work is claimed, not
// assigned; see https://github.com/Maratyszcza/pthreadpool.
#pragma once

#include <cstdint>

namespace onert_neon {

// f(ctx, range, slot): range `range` of a job, run on pool thread `slot` (0 = the caller).
using RangeFn = void (*)(void* ctx, int64_t range, int slot);

// Run ranges [0, ranges) of `fn` on up to `threads` threads (the caller included); returns
// once all are done. A call made while the pool is busy (a nested call from inside a range,
// or another thread's job in flight) runs its ranges on the calling thread, in order.
void run_ranges(int threads, int64_t ranges, RangeFn fn, void* ctx);

// The pool thread running the current range: 0 for the caller, < the call's `threads`
// (an index into per-thread scratch sized for `threads`).
int parallel_slot();
namespace detail {
void set_slot(int slot);
}

// f(begin, end) over [0, n) split into at most `threads` contiguous ranges of >= `grain` items
// (any thread may run any range; parallel_slot() says which thread it is).
template <class F>
void parallel_range(int threads, int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (n + grain - 1) / grain;
  int t = threads < 1 ? 1 : threads;
  if (chunks < t) t = static_cast<int>(chunks);
  if (t <= 1) { f(int64_t{0}, n); return; }
  struct Ctx { F* f; int64_t n, step; } ctx{&f, n, (n + t - 1) / t};
  run_ranges(t, t, [](void* p, int64_t i, int slot) {
    const Ctx& c = *static_cast<Ctx*>(p);
    const int64_t b = i * c.step, e = b + c.step < c.n ? b + c.step : c.n;
    if (b >= e) return;
    const int outer = parallel_slot();
    detail::set_slot(slot);
    (*c.f)(b, e);
    detail::set_slot(outer);
  }, &ctx);
}

// The pool every kernel module of the process shares: the first module loaded creates it and
// the others adopt it (bind_util.h's share_thread_pool), so idle workers of one module never
// compete for a core with another's. `run` is run_ranges of the module that made it.
struct ThreadPoolApi {
  int version;
  void (*run)(int threads, int64_t ranges, RangeFn fn, void* ctx);
};
const ThreadPoolApi* thread_pool_api();          // the pool this module uses
void adopt_thread_pool(const ThreadPoolApi* api);  // use another module's pool

}  // namespace onert_neon
