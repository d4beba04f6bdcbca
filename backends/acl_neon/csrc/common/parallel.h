// Threading for the acl_neon kernels: OpenMP, with the thread count passed by each call
// (the session's `num_threads`), so sessions with different counts do not disturb each other.
#pragma once

#include <cstdint>

namespace onert_neon {

// f(begin, end) over [0, n) split into at most `threads` contiguous ranges of >= `grain` items.
template <class F>
void parallel_range(int threads, int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (n + grain - 1) / grain;
  int t = threads < 1 ? 1 : threads;
  if (chunks < t) t = static_cast<int>(chunks);
  if (t <= 1) { f(int64_t{0}, n); return; }
  const int64_t step = (n + t - 1) / t;
#pragma omp parallel for num_threads(t) schedule(static)
  for (int i = 0; i < t; ++i) {
    int64_t b = i * step, e = b + step < n ? b + step : n;
    if (b < e) f(b, e);
  }
}

}  // namespace onert_neon
