// C++ tests of the integer / bool kernels and SELECT against scalar references (broadcast rows
// split between threads 1 and 2, wrap-around, the clamp, rows picked by the condition).
#include <cstdint>
#include <vector>

#include "int_eltwise.h"
#include "testing.h"

using namespace onert_neon::eltwise;

NEON_TEST(int_binary_wraps_broadcasts_and_clamps) {
  // out [70, 1031] = a [70, 1031] + b [1031], int32 near the limits, then clamped to [0, 6]
  const int64_t r = 70, n = 1031;
  std::vector<int32_t> a(r * n), b(n);
  for (int64_t i = 0; i < r * n; ++i) a[i] = INT32_MAX - static_cast<int32_t>(i % 13);
  for (int64_t j = 0; j < n; ++j) b[j] = static_cast<int32_t>(j % 7) - 3;
  IntBinaryParams p;
  p.op = kIAdd; p.type = kInt32; p.b.rank = 2;
  p.b.shape[0] = r; p.b.shape[1] = n;
  p.b.stride[0][0] = n; p.b.stride[0][1] = 1;
  p.b.stride[1][0] = 0; p.b.stride[1][1] = 1;
  for (int64_t lo : {int64_t{INT32_MIN}, int64_t{0}}) {
    p.act_min = lo;
    p.act_max = lo == 0 ? 6 : INT32_MAX;
    for (int t : {1, 2}) {
      std::vector<int32_t> y(r * n, -7);
      int_binary(p, a.data(), b.data(), y.data(), t);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int32_t s = static_cast<int32_t>(static_cast<uint32_t>(a[i * n + j]) +
                                           static_cast<uint32_t>(b[j]));
          if (lo == 0) s = s < 0 ? 0 : (s > 6 ? 6 : s);
          CHECK(y[i * n + j] == s);
        }
    }
  }
}

NEON_TEST(int_comparisons_and_logical) {
  const int64_t n = 37;
  std::vector<int64_t> a(n), b(n);
  std::vector<uint8_t> x(n), z(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (i % 5) - 2;
    b[i] = (i % 3) - 1;
    x[i] = static_cast<uint8_t>(i % 2 ? 0 : 1 + i % 4);    // any non-zero byte is true
    z[i] = static_cast<uint8_t>(i % 3 == 0);
  }
  IntBinaryParams p;
  p.b.shape[0] = n; p.b.stride[0][0] = 1; p.b.stride[1][0] = 1;
  for (int op = kIEq; op < kIntBinOpCount; ++op) {
    p.op = op;
    p.type = op >= kIAnd ? kBool : kInt64;
    CHECK(int_binary_supported(op, p.type));
    int_binary(p, op >= kIAnd ? static_cast<const void*>(x.data()) : a.data(),
               op >= kIAnd ? static_cast<const void*>(z.data()) : b.data(), y.data(), 1);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t u = a[i], v = b[i];
      const bool xu = x[i] != 0, zv = z[i] != 0;
      bool c = false;
      switch (op) {
        case kIEq: c = u == v; break;
        case kINe: c = u != v; break;
        case kILt: c = u < v; break;
        case kILe: c = u <= v; break;
        case kIGt: c = u > v; break;
        case kIGe: c = u >= v; break;
        case kIAnd: c = xu && zv; break;
        default: c = xu || zv; break;
      }
      CHECK(y[i] == (c ? 1 : 0));
    }
  }
  CHECK(!int_binary_supported(kIAdd, kBool) && !int_binary_supported(kIAnd, kInt32));
  logical_not(x.data(), y.data(), n);
  for (int64_t i = 0; i < n; ++i) CHECK(y[i] == (x[i] == 0 ? 1 : 0));
}

NEON_TEST(select_rows_and_broadcast) {
  // SELECT's rank-1 condition [3] over x, y [3, 5]; then SELECT_V2 c [4, 1], x [5], y scalar
  std::vector<int64_t> x(15), y(15), o(15);
  for (int i = 0; i < 15; ++i) { x[i] = i; y[i] = 100 + i; }
  std::vector<uint8_t> c{1, 0, 1};
  Broadcast<3> p;
  p.rank = 2; p.shape[0] = 3; p.shape[1] = 5;
  p.stride[0][0] = 1; p.stride[0][1] = 0;
  p.stride[1][0] = 5; p.stride[1][1] = 1;
  p.stride[2][0] = 5; p.stride[2][1] = 1;
  select_values(p, 8, c.data(), x.data(), y.data(), o.data(), 2);
  for (int i = 0; i < 15; ++i) CHECK(o[i] == (c[i / 5] ? x[i] : y[i]));
  std::vector<uint16_t> x2{1, 2, 3, 4, 5}, y2{9}, o2(20);
  std::vector<uint8_t> c2{0, 1, 1, 0};
  p.shape[0] = 4;
  p.stride[1][0] = 0;
  p.stride[2][0] = 0; p.stride[2][1] = 0;
  select_values(p, 2, c2.data(), x2.data(), y2.data(), o2.data(), 1);
  for (int i = 0; i < 20; ++i) CHECK(o2[i] == (c2[i / 5] ? x2[i % 5] : 9));
}
