#include <cstdint>
#include <cstring>
#include <vector>

#include "gather.h"
#include "strided_copy.h"
#include "testing.h"

using namespace onert_neon;

namespace {

// the reference: element by element over the region as described (before normalizing)
void ref_copy(const StridedRegion& r, const char* src, char* dst) {
  int64_t total = 1;
  for (int i = 0; i < r.nd; ++i) total *= r.shape[i];
  for (int64_t f = 0; f < total; ++f) {
    int64_t rest = f, so = 0, dof = 0;
    for (int i = r.nd - 1; i >= 0; --i) {
      int64_t k = rest % r.shape[i];
      rest /= r.shape[i];
      so += k * r.src_stride[i];
      dof += k * r.dst_stride[i];
    }
    std::memcpy(dst + dof, src + so, r.elem);
  }
}

// a transpose of a contiguous tensor `shape` by `perm` into a contiguous output
StridedRegion transpose_region(const std::vector<int64_t>& shape, const std::vector<int>& perm,
                               int elem) {
  StridedRegion r;
  r.nd = static_cast<int>(shape.size());
  r.elem = elem;
  std::vector<int64_t> in_stride(shape.size());
  int64_t s = elem;
  for (int i = r.nd - 1; i >= 0; --i) { in_stride[i] = s; s *= shape[i]; }
  int64_t d = elem;
  for (int i = r.nd - 1; i >= 0; --i) {
    r.shape[i] = shape[perm[i]];
    r.src_stride[i] = in_stride[perm[i]];
    r.dst_stride[i] = d;
    d *= r.shape[i];
  }
  return r;
}

void check_region(StridedRegion r, int64_t src_bytes, int64_t dst_bytes, int64_t src_off,
                  int64_t dst_off, int threads) {
  std::vector<char> src(src_bytes), want(dst_bytes, 7), got(dst_bytes, 7);
  for (int64_t i = 0; i < src_bytes; ++i) src[i] = static_cast<char>(i * 31 + 5);
  ref_copy(r, src.data() + src_off, want.data() + dst_off);
  if (normalize_region(r)) strided_copy(r, src.data() + src_off, got.data() + dst_off, threads);
  CHECK(want == got);
}

}  // namespace

NEON_TEST(movement_transposes_every_elem_size) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 5, 7}, {2, 33, 17, 3}, {1, 40, 37},
                                                    {2, 3, 1, 5, 2, 3}};
  const std::vector<std::vector<int>> perms = {{2, 0, 1}, {0, 3, 1, 2}, {0, 2, 1},
                                               {5, 4, 3, 2, 1, 0}};
  for (size_t c = 0; c < shapes.size(); ++c)
    for (int elem : {1, 2, 4, 8})
      for (int threads : {1, 2}) {
        int64_t n = elem;
        for (int64_t d : shapes[c]) n *= d;
        check_region(transpose_region(shapes[c], perms[c], elem), n, n, 0, 0, threads);
      }
}

NEON_TEST(movement_big_transpose_threaded) {
  for (int threads : {1, 2}) {
    const std::vector<int64_t> shape = {3, 301, 257};
    check_region(transpose_region(shape, {0, 2, 1}, 4), 3 * 301 * 257 * 4,
                 3 * 301 * 257 * 4, 0, 0, threads);
  }
}

NEON_TEST(movement_slices_with_negative_strides_and_offsets) {
  // a [6, 9] int16 source: rows 5, 3, 1 reversed, every other column from 8 down, into a
  // [3, 4] block of a [5, 11] destination at (1, 2)
  StridedRegion r;
  r.nd = 2; r.elem = 2;
  r.shape[0] = 3; r.shape[1] = 4;
  r.src_stride[0] = -2 * 9 * 2; r.src_stride[1] = -2 * 2;
  r.dst_stride[0] = 11 * 2; r.dst_stride[1] = 2;
  for (int threads : {1, 2})
    check_region(r, 6 * 9 * 2, 5 * 11 * 2, (5 * 9 + 8) * 2, (1 * 11 + 2) * 2, threads);
  // a contiguous concat-like copy of a [4, 100003] row block into a wider destination
  StridedRegion w;
  w.nd = 2; w.elem = 1;
  w.shape[0] = 4; w.shape[1] = 100003;
  w.src_stride[0] = 100003; w.src_stride[1] = 1;
  w.dst_stride[0] = 200010; w.dst_stride[1] = 1;
  for (int threads : {1, 2}) check_region(w, 4 * 100003, 4 * 200010, 0, 17, threads);
}

NEON_TEST(movement_normalize_merges_and_drops) {
  StridedRegion r = transpose_region({2, 1, 3, 4}, {0, 1, 2, 3}, 4);
  CHECK(normalize_region(r));
  CHECK(r.nd == 1 && r.shape[0] == 24);
  StridedRegion e = transpose_region({2, 0, 3}, {0, 1, 2}, 4);
  CHECK(!normalize_region(e));
}

NEON_TEST(movement_fill_strided_and_contiguous) {
  for (int elem : {1, 2, 4, 8})
    for (int threads : {1, 2}) {
      // fill the [3, 5] interior (stride 7 elements) of a [5, 7] buffer, then all of it
      std::vector<char> buf(5 * 7 * elem, 0);
      StridedRegion r;
      r.nd = 2; r.elem = elem;
      r.shape[0] = 3; r.shape[1] = 5;
      r.dst_stride[0] = r.src_stride[0] = 7 * elem;
      r.dst_stride[1] = r.src_stride[1] = elem;
      char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
      CHECK(normalize_region(r));
      strided_fill(r, value, buf.data() + (7 + 1) * elem, threads);
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
          bool inside = i >= 1 && i < 4 && j >= 1 && j < 6;
          const char* p = buf.data() + (i * 7 + j) * elem;
          CHECK(inside ? std::memcmp(p, value, elem) == 0 : p[0] == 0);
        }
      StridedRegion all;
      all.nd = 1; all.elem = elem; all.shape[0] = 300001;
      all.dst_stride[0] = all.src_stride[0] = elem;
      std::vector<char> big(300001 * elem, 0);
      CHECK(normalize_region(all));
      strided_fill(all, value, big.data(), threads);
      bool ok = true;
      for (int64_t i = 0; i < 300001; ++i) ok = ok && std::memcmp(&big[i * elem], value, elem) == 0;
      CHECK(ok);
    }
}

NEON_TEST(movement_gather_rows_and_bounds) {
  // params [2 batch, 3 outer, 5 limit, 3 row] int32, indices [2, 4]
  std::vector<int32_t> params(2 * 3 * 5 * 3);
  for (size_t i = 0; i < params.size(); ++i) params[i] = static_cast<int32_t>(i * 3 + 1);
  std::vector<int64_t> idx = {4, 0, 2, 2, 1, 3, 0, 4};
  GatherParams p{2, 3, 5, 4, 3 * 4};
  for (int threads : {1, 2}) {
    std::vector<int32_t> out(2 * 3 * 4 * 3, -1);
    CHECK(gather_rows(p, params.data(), idx.data(), 8, out.data(), threads) == -1);
    for (int b = 0; b < 2; ++b)
      for (int o = 0; o < 3; ++o)
        for (int j = 0; j < 4; ++j)
          for (int k = 0; k < 3; ++k)
            CHECK(out[((b * 3 + o) * 4 + j) * 3 + k] ==
                  params[((b * 3 + o) * 5 + idx[b * 4 + j]) * 3 + k]);
  }
  std::vector<int16_t> bad16 = {0, 1, 5, 0, 0, 0, 0, 0};
  std::vector<int32_t> bad32 = {0, 1, 2, 3, 4, 0, -1, 0};
  std::vector<int32_t> out(2 * 3 * 4 * 3, -1);
  CHECK(gather_rows(p, params.data(), bad16.data(), 2, out.data(), 2) == 2);
  CHECK(gather_rows(p, params.data(), bad32.data(), 4, out.data(), 1) == 6);
  CHECK(index_at(bad32.data(), 4, 6) == -1);
  CHECK(out[0] == -1);   // nothing written on a bad index
}

NEON_TEST(movement_one_hot) {
  // indices [2, 3] (outer 2 x inner 3) with axis 1: out [2, depth 4, 3], int16 values
  std::vector<int32_t> idx = {0, 3, 5, -1, 2, 2};
  int16_t on = 9, off = -2;
  OneHotParams p{2, 4, 3, 2};
  for (int threads : {1, 2}) {
    std::vector<int16_t> out(2 * 4 * 3, 0);
    one_hot(p, idx.data(), 4, &on, &off, out.data(), threads);
    for (int o = 0; o < 2; ++o)
      for (int d = 0; d < 4; ++d)
        for (int i = 0; i < 3; ++i)
          CHECK(out[(o * 4 + d) * 3 + i] == (idx[o * 3 + i] == d ? on : off));
  }
}
