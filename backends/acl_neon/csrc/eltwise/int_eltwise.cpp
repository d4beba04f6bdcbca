// Integer and bool elementwise kernels and SELECT (int_eltwise.h): scalar loops, compiled for
// the baseline ISA only.
#include "int_eltwise.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "parallel.h"

namespace onert_neon {
namespace eltwise {
namespace {

// row(offsets of the inputs, output offset, n) over every innermost row of the output, the
// rows split between threads once there are enough elements
template <int N, class F>
void for_rows(const Broadcast<N>& p, int threads, F&& row) {
  const int last = p.rank - 1;
  const int64_t n = p.shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.shape[d];
  if (rows == 0 || n == 0) return;
  constexpr int64_t kGrain = 1 << 16;     // elements per thread before a second one pays
  if (rows == 1) {
    parallel_range(threads, n, kGrain, [&](int64_t s, int64_t e) {
      int64_t off[N];
      for (int k = 0; k < N; ++k) off[k] = s * p.stride[k][last];
      row(off, s, e - s);
    });
    return;
  }
  parallel_range(threads, rows, n >= kGrain ? 1 : kGrain / n, [&](int64_t r0, int64_t r1) {
    int64_t idx[kMaxRank] = {0}, off[N] = {0};
    int64_t rem = r0;
    for (int d = last - 1; d >= 0; --d) {     // the multi-index of row r0
      idx[d] = rem % p.shape[d];
      rem /= p.shape[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * p.stride[k][d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      row(off, r * n, n);
      for (int d = last - 1; d >= 0; --d) {   // odometer step
        ++idx[d];
        for (int k = 0; k < N; ++k) off[k] += p.stride[k][d];
        if (idx[d] < p.shape[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= idx[d] * p.stride[k][d];
        idx[d] = 0;
      }
    }
  });
}

// storage and value of an element type: bool is a byte read as (byte != 0)
template <class T>
struct Elem {
  using S = T;
  static T get(S v) { return v; }
};
template <>
struct Elem<bool> {
  using S = uint8_t;
  static bool get(S v) { return v != 0; }
};

// integer arithmetic in the unsigned type of at least 32 bits: wraps around (no UB), and the
// conversion back keeps the low bits (two's complement), as the interpreter's results do
template <class T>
using Wide = std::conditional_t<(sizeof(T) < 8), uint32_t, uint64_t>;

constexpr bool valid_op(int op, bool is_bool) {
  return is_bool ? (op == kIEq || op == kINe || op == kIAnd || op == kIOr)
                 : !(op == kIAnd || op == kIOr);
}

template <int OP, class T>
inline auto apply(T a, T b) {
  if constexpr (OP == kIAdd) return static_cast<T>(Wide<T>(a) + Wide<T>(b));
  else if constexpr (OP == kISub) return static_cast<T>(Wide<T>(a) - Wide<T>(b));
  else if constexpr (OP == kIMul) return static_cast<T>(Wide<T>(a) * Wide<T>(b));
  else if constexpr (OP == kIMax) return a > b ? a : b;
  else if constexpr (OP == kIMin) return a < b ? a : b;
  else if constexpr (OP == kIEq) return static_cast<uint8_t>(a == b);
  else if constexpr (OP == kINe) return static_cast<uint8_t>(a != b);
  else if constexpr (OP == kILt) return static_cast<uint8_t>(a < b);
  else if constexpr (OP == kILe) return static_cast<uint8_t>(a <= b);
  else if constexpr (OP == kIGt) return static_cast<uint8_t>(a > b);
  else if constexpr (OP == kIGe) return static_cast<uint8_t>(a >= b);
  else if constexpr (OP == kIAnd) return static_cast<uint8_t>(a && b);
  else return static_cast<uint8_t>(a || b);
}

using IntRow = void (*)(const void*, const void*, void*, int64_t, int64_t, int64_t, int64_t,
                        int64_t);

// o[0:n] = a[i * ia] (op) b[i * ib] (ia, ib: 0 or 1), clamped to [lo, hi] unless bool out
template <int OP, class T>
void bin_row(const void* va, const void* vb, void* vo, int64_t n, int64_t ia, int64_t ib,
             int64_t lo64, int64_t hi64) {
  using S = typename Elem<T>::S;
  using O = std::conditional_t<bool_out(OP), uint8_t, S>;
  const S* a = static_cast<const S*>(va);
  const S* b = static_cast<const S*>(vb);
  O* o = static_cast<O*>(vo);
  const O lo = static_cast<O>(lo64), hi = static_cast<O>(hi64);
  auto f = [lo, hi](S x, S y) -> O {
    const O r = static_cast<O>(apply<OP, T>(Elem<T>::get(x), Elem<T>::get(y)));
    if constexpr (bool_out(OP)) return r;
    else return r < lo ? lo : (r > hi ? hi : r);
  };
  if (ia && ib) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  } else if (ia) {
    const S y = b[0];
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], y);
  } else if (ib) {
    const S x = a[0];
    for (int64_t i = 0; i < n; ++i) o[i] = f(x, b[i]);
  } else {
    std::fill(o, o + n, f(a[0], b[0]));
  }
}

template <int OP, class T>
constexpr IntRow row_if_valid() {
  if constexpr (valid_op(OP, std::is_same_v<T, bool>)) return &bin_row<OP, T>;
  else return nullptr;
}

template <class T>
IntRow row_of(int op) {
  switch (op) {
#define ONERT_INT_OP(OP) case OP: return row_if_valid<OP, T>();
    ONERT_INT_OP(kIAdd) ONERT_INT_OP(kISub) ONERT_INT_OP(kIMul) ONERT_INT_OP(kIMax)
    ONERT_INT_OP(kIMin) ONERT_INT_OP(kIEq) ONERT_INT_OP(kINe) ONERT_INT_OP(kILt)
    ONERT_INT_OP(kILe) ONERT_INT_OP(kIGt) ONERT_INT_OP(kIGe) ONERT_INT_OP(kIAnd)
    ONERT_INT_OP(kIOr)
#undef ONERT_INT_OP
    default: return nullptr;
  }
}

IntRow pick_row(int op, int type) {
  switch (type) {
    case kBool: return row_of<bool>(op);
    case kInt8: return row_of<int8_t>(op);
    case kUInt8: return row_of<uint8_t>(op);
    case kInt16: return row_of<int16_t>(op);
    case kInt32: return row_of<int32_t>(op);
    case kInt64: return row_of<int64_t>(op);
    default: return nullptr;
  }
}

// o[0:n] = c[i * ic] ? x[i * ix] : y[i * iy]
template <class E>
void select_row(const uint8_t* c, const E* x, const E* y, E* o, int64_t n, int64_t ic,
                int64_t ix, int64_t iy) {
  if (ic == 0) {                  // one condition for the row: a copy of x's or y's row
    const E* s = c[0] ? x : y;
    if (c[0] ? ix : iy) std::memcpy(o, s, static_cast<size_t>(n) * sizeof(E));
    else std::fill(o, o + n, s[0]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i * ix] : y[i * iy];
}

template <class E>
void select_typed(const Broadcast<3>& p, const uint8_t* c, const void* x, const void* y,
                  void* out, int threads) {
  const int last = p.rank - 1;
  const int64_t ic = p.stride[0][last], ix = p.stride[1][last], iy = p.stride[2][last];
  const E* px = static_cast<const E*>(x);
  const E* py = static_cast<const E*>(y);
  E* po = static_cast<E*>(out);
  for_rows(p, threads, [&](const int64_t* off, int64_t o, int64_t n) {
    select_row(c + off[0], px + off[1], py + off[2], po + o, n, ic, ix, iy);
  });
}

}  // namespace

int elem_size(int type) {
  switch (type) {
    case kInt16: return 2;
    case kInt32: return 4;
    case kInt64: return 8;
    default: return 1;
  }
}

bool int_binary_supported(int op, int type) {
  return op >= 0 && op < kIntBinOpCount && type >= 0 && type < kElemTypeCount &&
         valid_op(op, type == kBool);
}

void int_binary(const IntBinaryParams& p, const void* a, const void* b, void* out,
                int threads) {
  assert(int_binary_supported(p.op, p.type) && p.b.rank >= 1 && p.b.rank <= kMaxRank);
  const IntRow fn = pick_row(p.op, p.type);
  if (fn == nullptr) return;
  const int64_t es = elem_size(p.type), eo = bool_out(p.op) ? 1 : es;
  const int last = p.b.rank - 1;
  const int64_t ia = p.b.stride[0][last], ib = p.b.stride[1][last];
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  char* po = static_cast<char*>(out);
  for_rows(p.b, threads, [&](const int64_t* off, int64_t o, int64_t n) {
    fn(pa + off[0] * es, pb + off[1] * es, po + o * eo, n, ia, ib, p.act_min, p.act_max);
  });
}

void select_values(const Broadcast<3>& p, int elem_bytes, const uint8_t* c, const void* x,
                   const void* y, void* out, int threads) {
  assert(p.rank >= 1 && p.rank <= kMaxRank);
  switch (elem_bytes) {
    case 1: return select_typed<uint8_t>(p, c, x, y, out, threads);
    case 2: return select_typed<uint16_t>(p, c, x, y, out, threads);
    case 4: return select_typed<uint32_t>(p, c, x, y, out, threads);
    case 8: return select_typed<uint64_t>(p, c, x, y, out, threads);
    default: assert(false && "select: element size must be 1, 2, 4 or 8");
  }
}

void logical_not(const uint8_t* x, uint8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint8_t>(x[i] == 0);
}

}  // namespace eltwise
}  // namespace onert_neon
