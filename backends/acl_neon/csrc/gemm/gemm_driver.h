// The threaded tile loop shared by the GEMM entry points (baseline files only).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gemm.h"
#include "parallel.h"

namespace onert_neon {

struct TileKernel {
  void (*fn)(const TileArgs&);
  int mr;
};
TileKernel tile_kernel();   // the active ISA's micro-kernel

constexpr int64_t kColBlock = 32;   // columns per task (a multiple of every ISA's step)

constexpr int64_t kGroupBytes = 256 * 1024;   // B panels per column group (L2-resident)

constexpr int64_t kPrefetchTiles = 8;   // at most this many row tiles: prefetch B (TileArgs)

// The row tiles of M rows: full tiles of mr rows, except that a remainder of fewer than mr / 2
// rows is shared with the last full tile (49 rows with mr = 12: 12, 12, 12, 7, 6). A tile of
// one or two rows has too few accumulators to hide the FMA latency (MobileNetV2's 7x7 maps:
// 49 rows = 4 x 12 + 1); two tiles of 6 or 7 rows run at the full FMA rate.
struct RowTiles {
  int64_t M, mr, count, rem;
  bool share;   // the last two tiles share mr + rem rows
  RowTiles(int64_t m, int64_t r)
      : M(m), mr(r), count((m + r - 1) / r), rem(m % r),
        share(count >= 2 && rem > 0 && 2 * rem < r) {}
  void at(int64_t i, int64_t& m0, int& rows) const {
    if (share && i >= count - 2) {
      const int64_t first = (mr + rem + 1) / 2;   // the second-to-last tile's rows
      m0 = (count - 2) * mr + (i == count - 1 ? first : 0);
      rows = static_cast<int>(i == count - 1 ? mr + rem - first : first);
    } else {
      m0 = i * mr;
      rows = static_cast<int>(M - m0 < mr ? M - m0 : mr);
    }
  }
};

// Tasks are (row tile, 32-column block) pairs, taken column group by column group: a group is
// the most column blocks whose B panels fit kGroupBytes (all of B for most layers), and every
// row tile runs over a group's blocks before the next group starts, so a B larger than L2 is
// read from memory once instead of once per row tile. Within a group, tasks are row-tile major;
// each thread takes a contiguous run of them and calls the micro-kernel once per row tile and
// group it touches. `rows_of(m0, rows, scratch, lda)` returns the A rows of a tile (in place,
// or gathered into `scratch`, which holds mr*K floats when `scratch_needed`). `epi` (none when
// null) runs on each tile's rows and columns right after the micro-kernel stored them, while
// they are in cache.
template <class RowsOf>
void run_tiles(int64_t M, const PackedB& b, float* c, int64_t ldc, float lo, float hi,
               int threads, bool scratch_needed, RowsOf&& rows_of,
               const Epilogue* epi = nullptr) {
  if (M <= 0) return;
  const TileKernel tk = tile_kernel();
  const EpilogueRowsFn epi_fn = epi ? epilogue_rows_fn() : nullptr;
  const int64_t K = b.K, N = b.N;
  const RowTiles tiles(M, tk.mr);
  const int64_t mtiles = tiles.count;
  const int64_t cblocks = (N + kColBlock - 1) / kColBlock;
  const int64_t block_bytes = K * kColBlock * static_cast<int64_t>(sizeof(float));
  // one row tile reads B once whatever the grouping: its calls span the thread's columns (the
  // micro-kernel's wide form for 1-2 rows streams several panels at once)
  const int64_t group = mtiles == 1 ? cblocks
      : std::max<int64_t>(1, std::min(cblocks, kGroupBytes / block_bytes));
  // a thread's share must be worth a fork/join (and, on a busy machine, waiting for a core):
  // at least kMinFlops of real work (a 1-row FC tile does 1/mr of a full tile's)
  constexpr int64_t kMinFlops = 400000;
  const int64_t tile_rows = M < tk.mr ? M : tk.mr;
  const int64_t flops_per_task = 2 * tile_rows * kColBlock * K;
  const int64_t grain = flops_per_task >= kMinFlops ? 1 : kMinFlops / flops_per_task;
  // few row tiles read each B panel (7x7 maps, FC): B streams from L3 or memory at their pace
  const bool prefetch = mtiles <= kPrefetchTiles;
  parallel_range(threads, mtiles * cblocks, grain, [&](int64_t tb, int64_t te) {
    std::vector<float> scratch(scratch_needed ? static_cast<size_t>(tk.mr * K) : 0);
    int64_t last_m0 = -1;
    const float* a = nullptr;
    int64_t lda = K;
    for (int64_t task = tb; task < te;) {
      const int64_t g = task / (mtiles * group), g0 = g * group;
      const int64_t width = std::min(group, cblocks - g0);   // blocks in this group
      const int64_t off = task - g * mtiles * group;
      const int64_t cb0 = g0 + off % width, cb1 = std::min(g0 + width, cb0 + (te - task));
      int64_t m0;
      int rows;
      tiles.at(off / width, m0, rows);
      if (m0 != last_m0) {
        a = rows_of(m0, rows, scratch.data(), lda);
        last_m0 = m0;
      }
      TileArgs t{rows, K, a, lda, &b, c + m0 * ldc, ldc, cb0 * kColBlock,
                 cb1 * kColBlock < N ? cb1 * kColBlock : N, lo, hi, prefetch};
      tk.fn(t);
      if (epi_fn) epi_fn(*epi, t.c + t.col0, rows, t.col1 - t.col0, ldc);
      task += cb1 - cb0;
    }
  });
}

}  // namespace onert_neon
