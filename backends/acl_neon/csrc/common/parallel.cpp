// The worker pool behind parallel_range (parallel.h).
//
// A job's ranges are claimed through one 64-bit word: epoch (16 bits, one per job) | threads
// (8) | ranges (20) | next unclaimed range (20). A thread claims range `next` with a CAS that
// also checks the epoch, so a worker that wakes after its job is over (or reads a stale word)
// claims nothing; once a claim succeeds, the job cannot end before that range is done, so its
// function and context stay valid. The caller waits for `done == ranges`, never for workers.
// Idle workers spin for kSpinMicros on the job counter, then sleep on a condition variable; a
// caller waiting for ranges workers claimed spins for kCallerSpinMicros, then sleeps too.
#include "parallel.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ONERT_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define ONERT_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define ONERT_CPU_RELAX() ((void)0)
#endif

namespace onert_neon {
namespace {

constexpr int kMaxThreads = 255;
constexpr int64_t kMaxRanges = (int64_t{1} << 20) - 1;
constexpr int kSpinMicros = 300;        // an idle worker's spin before it sleeps
constexpr int kCallerSpinMicros = 50;   // a caller's spin on the workers' ranges before it sleeps

inline uint64_t pack(uint64_t epoch, uint64_t threads, uint64_t ranges, uint64_t next) {
  return (epoch & 0xFFFF) << 48 | threads << 40 | ranges << 20 | next;
}
inline uint64_t epoch_of(uint64_t c) { return c >> 48; }
inline int threads_of(uint64_t c) { return static_cast<int>(c >> 40 & 0xFF); }
inline int64_t ranges_of(uint64_t c) { return static_cast<int64_t>(c >> 20 & kMaxRanges); }
inline int64_t next_of(uint64_t c) { return static_cast<int64_t>(c & kMaxRanges); }

inline int64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - t0).count();
}

struct Pool {
  std::atomic<bool> busy{false};          // a caller's job is in flight
  std::atomic<uint64_t> claim{0};
  std::atomic<int64_t> done{0};
  std::atomic<RangeFn> fn{nullptr};
  std::atomic<void*> ctx{nullptr};
  std::atomic<uint32_t> seq{0};           // jobs published (what idle workers watch)
  std::atomic<int> sleepers{0};
  std::mutex mu;
  std::condition_variable cv;              // idle workers sleep here
  std::atomic<bool> caller_asleep{false};
  std::condition_variable done_cv;         // the caller sleeps here for the workers' ranges
  int workers = 0;                        // started (changed only by the caller holding busy)
  uint64_t epoch = 0;

  // claim a range of the job `epoch` for pool thread `slot`; false when none is left for it
  bool claim_one(uint64_t e, int slot, int64_t* range) {
    uint64_t c = claim.load(std::memory_order_acquire);
    for (;;) {
      if (epoch_of(c) != e || next_of(c) >= ranges_of(c) || slot >= threads_of(c)) return false;
      if (claim.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        *range = next_of(c);
        return true;
      }
    }
  }

  void work(uint64_t e, int slot) {
    int64_t r;
    while (claim_one(e, slot, &r)) {
      const int64_t ranges = ranges_of(claim.load(std::memory_order_relaxed));
      fn.load(std::memory_order_relaxed)(ctx.load(std::memory_order_relaxed), r, slot);
      if (done.fetch_add(1) + 1 == ranges && slot != 0 && caller_asleep.load()) {
        std::lock_guard<std::mutex> lk(mu);
        done_cv.notify_all();
      }
    }
  }

  void worker_loop(int slot) {
    uint32_t seen = seq.load(std::memory_order_acquire);
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; seq.load(std::memory_order_acquire) == seen; ++i) {
        ONERT_CPU_RELAX();
        if ((i & 255) == 255 && micros_since(t0) > kSpinMicros) {
          std::unique_lock<std::mutex> lk(mu);
          sleepers.fetch_add(1);
          while (seq.load() == seen) cv.wait(lk);
          sleepers.fetch_sub(1);
          break;
        }
      }
      seen = seq.load(std::memory_order_acquire);
      work(epoch_of(claim.load(std::memory_order_acquire)), slot);
    }
  }

  void run(int threads, int64_t ranges, RangeFn f, void* c) {
    if (threads > kMaxThreads) threads = kMaxThreads;
    while (workers < threads - 1) {
      const int slot = ++workers;
      std::thread([this, slot] { worker_loop(slot); }).detach();
    }
    fn.store(f, std::memory_order_relaxed);
    ctx.store(c, std::memory_order_relaxed);
    done.store(0, std::memory_order_relaxed);
    epoch = (epoch + 1) & 0xFFFF;
    claim.store(pack(epoch, static_cast<uint64_t>(threads), static_cast<uint64_t>(ranges), 0),
                std::memory_order_release);
    seq.fetch_add(1);
    if (sleepers.load() > 0) {
      std::lock_guard<std::mutex> lk(mu);
      cv.notify_all();
    }
    work(epoch, 0);
    // the ranges workers claimed: wait for them, spinning, then asleep (a worker that lost its
    // core to another process may then get this one)
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; done.load(std::memory_order_acquire) < ranges; ++i) {
      ONERT_CPU_RELAX();
      if ((i & 255) == 255 && micros_since(t0) > kCallerSpinMicros) {
        std::unique_lock<std::mutex> lk(mu);
        caller_asleep.store(true);
        while (done.load() < ranges) done_cv.wait(lk);
        caller_asleep.store(false);
        break;
      }
    }
  }
};

// leaked on purpose: detached workers may still be waiting on it at exit
Pool* g_pool = new Pool;
// a forked child has none of the parent's workers (and maybe a mutex held by one): a new pool
void reset_after_fork() { g_pool = new Pool; }
const bool g_atfork = pthread_atfork(nullptr, nullptr, reset_after_fork) == 0;

thread_local int t_slot = 0;

void run_local(int threads, int64_t ranges, RangeFn fn, void* ctx) {
  Pool* pool = g_pool;
  if (threads <= 1 || ranges <= 1 || ranges > kMaxRanges ||
      pool->busy.exchange(true, std::memory_order_acquire)) {
    for (int64_t r = 0; r < ranges; ++r) fn(ctx, r, 0);   // serial (nested or pool in use)
    return;
  }
  pool->run(threads, ranges, fn, ctx);
  pool->busy.store(false, std::memory_order_release);
}

const ThreadPoolApi g_local_api{1, run_local};
std::atomic<const ThreadPoolApi*> g_api{&g_local_api};

}  // namespace

void run_ranges(int threads, int64_t ranges, RangeFn fn, void* ctx) {
  g_api.load(std::memory_order_acquire)->run(threads, ranges, fn, ctx);
}

int parallel_slot() { return t_slot; }
void detail::set_slot(int slot) { t_slot = slot; }

const ThreadPoolApi* thread_pool_api() { return g_api.load(std::memory_order_acquire); }

void adopt_thread_pool(const ThreadPoolApi* api) {
  if (api && api->version == g_local_api.version) g_api.store(api, std::memory_order_release);
}

}  // namespace onert_neon
