// Generic broadcasting binary kernels on the including ISA file's vectors: arithmetic with the
// fused clamp, max/min, squared difference, PReLU, and the comparisons (bool out).
#pragma once

#include <cstring>

#include "eltwise.h"
#include "parallel.h"

namespace onert_neon {
namespace eltwise {
namespace {

template <int OP>
inline V apply_bin(V a, V b) {
  if constexpr (OP == kAdd) return add(a, b);
  if constexpr (OP == kSub) return sub(a, b);
  if constexpr (OP == kMul) return mul(a, b);
  if constexpr (OP == kDiv) return div(a, b);
  if constexpr (OP == kMax) return vmax(a, b);      // a > b ? a : b, as TFLite
  if constexpr (OP == kMin) return vmin(a, b);
  if constexpr (OP == kSqDiff) { V d = sub(a, b); return mul(d, d); }
  if constexpr (OP == kPRelu) return select(ge(a, set1(0.0f)), a, mul(a, b));
  return a;
}

template <int OP>
inline M apply_cmp(V a, V b) {
  if constexpr (OP == kEq) return eq(a, b);
  if constexpr (OP == kNe) return ne(a, b);
  if constexpr (OP == kLt) return lt(a, b);
  if constexpr (OP == kLe) return le(a, b);
  if constexpr (OP == kGt) return gt(a, b);
  return ge(a, b);
}

constexpr bool is_cmp(int op) { return op >= kEq; }

// 8 mask bits -> 8 bytes of 0 / 1
struct ByteTable {
  uint64_t v[256];
  constexpr ByteTable() : v() {
    for (int i = 0; i < 256; ++i)
      for (int k = 0; k < 8; ++k)
        if ((i >> k) & 1) v[i] |= uint64_t{1} << (8 * k);
  }
};
constexpr ByteTable kByteTable{};

// one byte (0 or 1) per mask lane
inline void store_bits(uint8_t* o, uint32_t bits) {
  if constexpr (W >= 8) {
    for (int k = 0; k < W; k += 8) {
      const uint64_t v = kByteTable.v[(bits >> k) & 0xffu];
      std::memcpy(o + k, &v, 8);
    }
  } else if constexpr (W == 4) {   // bit k -> byte k (no two terms meet: no carries)
    const uint32_t v = ((bits & 0xfu) * 0x00204081u) & 0x01010101u;
    std::memcpy(o, &v, 4);
  } else {
    o[0] = static_cast<uint8_t>(bits & 1u);
  }
}

struct Clamp { V lo, hi; };

template <int OP, bool AV, bool BV>
inline void bin_vec(const float* a, const float* b, void* out, int64_t i, V va, V vb,
                    const Clamp& c) {
  V x = AV ? load(a + i) : va;
  V y = BV ? load(b + i) : vb;
  if constexpr (is_cmp(OP)) {
    store_bits(static_cast<uint8_t*>(out) + i, mask_bits(apply_cmp<OP>(x, y)));
  } else {
    store(static_cast<float*>(out) + i, vclamp(apply_bin<OP>(x, y), c.lo, c.hi));
  }
}

// out[0:n] = op(a[i or 0], b[i or 0]): AV / BV say whether a / b advance along the row
template <int OP, bool AV, bool BV>
void bin_row(const float* a, const float* b, void* out, int64_t n, const Clamp& c) {
  const V va = set1(a[0]), vb = set1(b[0]);
  int64_t i = 0;
  for (; i + W <= n; i += W) bin_vec<OP, AV, BV>(a, b, out, i, va, vb, c);
  if (i < n) {
    const int64_t r = n - i;
    float ta[W], tb[W];
    alignas(64) unsigned char to[W * 4];
    for (int k = 0; k < W; ++k) {
      ta[k] = AV ? (k < r ? a[i + k] : 1.0f) : a[0];
      tb[k] = BV ? (k < r ? b[i + k] : 1.0f) : b[0];
    }
    bin_vec<OP, true, true>(ta, tb, to, 0, va, vb, c);
    const int64_t es = is_cmp(OP) ? 1 : 4;
    std::memcpy(static_cast<unsigned char*>(out) + i * es, to, static_cast<size_t>(r * es));
  }
}

using RowFn = void (*)(const float*, const float*, void*, int64_t, const Clamp&);

template <int OP>
RowFn row_fn(bool av, bool bv) {
  if (av && bv) return bin_row<OP, true, true>;
  if (av) return bin_row<OP, true, false>;
  if (bv) return bin_row<OP, false, true>;
  return bin_row<OP, false, false>;
}

RowFn pick_row(int op, bool av, bool bv) {
  switch (op) {
#define ONERT_BIN(OP) case OP: return row_fn<OP>(av, bv);
    ONERT_BIN(kAdd) ONERT_BIN(kSub) ONERT_BIN(kMul) ONERT_BIN(kDiv) ONERT_BIN(kMax)
    ONERT_BIN(kMin) ONERT_BIN(kSqDiff) ONERT_BIN(kPRelu) ONERT_BIN(kEq) ONERT_BIN(kNe)
    ONERT_BIN(kLt) ONERT_BIN(kLe) ONERT_BIN(kGt) ONERT_BIN(kGe)
#undef ONERT_BIN
    default: return nullptr;
  }
}

// a zero-extended along the last dim (BinaryParams::pad_len): each output row in up to three
// runs of vectors (the last of each masked), those outside a's columns against +0.0 (what the
// PAD wrote), so every element is computed as the ADD computes it on the padded tensor. Rows
// are short (a pixel's channels): masked vectors, not bin_row's scalar tails.
template <bool AV>
inline void padded_run(const float* a, const float* b, float* o, int64_t n, const Clamp& c) {
  int64_t j = 0;
  for (; j + W <= n; j += W)
    store(o + j, vclamp(apply_bin<kAdd>(AV ? load(a + j) : zero(), load(b + j)), c.lo, c.hi));
  if (j < n) {
    const int r = static_cast<int>(n - j);
    store_n(o + j, vclamp(apply_bin<kAdd>(AV ? load_n(a + j, r) : zero(), load_n(b + j, r)),
                          c.lo, c.hi), r);
  }
}

void padded_binary(const BinaryParams& p, const float* a, const float* b, float* out,
                   int threads) {
  const int64_t rows = p.shape[0], n = p.shape[1], lo = p.pad_lo, len = p.pad_len;
  const Clamp c{set1(p.act_min), set1(p.act_max)};
  constexpr int64_t kGrain = 1 << 15;
  const int64_t grain = n >= kGrain ? 1 : kGrain / (n > 0 ? n : 1);
  parallel_range(threads, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* br = b + r * n;
      float* o = out + r * n;
      padded_run<false>(nullptr, br, o, lo, c);
      padded_run<true>(a + r * len, br + lo, o + lo, len, c);
      padded_run<false>(nullptr, br + lo + len, o + lo + len, n - lo - len, c);
    }
  });
}

void binary_impl(const BinaryParams& p, const float* a, const float* b, void* out,
                 int threads) {
  if (p.pad_len >= 0) {
    padded_binary(p, a, b, static_cast<float*>(out), threads);
    return;
  }
  const int last = p.rank - 1;
  const int64_t n = p.shape[last];
  const bool av = p.sa[last] != 0, bv = p.sb[last] != 0;
  RowFn fn = pick_row(p.op, av, bv);
  if (fn == nullptr) return;
  const Clamp c{set1(p.act_min), set1(p.act_max)};
  const int64_t es = is_cmp(p.op) ? 1 : 4;
  unsigned char* o = static_cast<unsigned char*>(out);
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.shape[d];
  constexpr int64_t kGrain = 1 << 15;     // elements per thread before a second one pays
  if (rows == 1) {
    parallel_range(threads, n, kGrain, [&](int64_t s, int64_t e) {
      fn(a + (av ? s : 0), b + (bv ? s : 0), o + s * es, e - s, c);
    });
    return;
  }
  const int64_t grain = n >= kGrain ? 1 : kGrain / (n > 0 ? n : 1);
  parallel_range(threads, rows, grain, [&](int64_t r0, int64_t r1) {
    int64_t idx[kMaxRank] = {0};
    int64_t oa = 0, ob = 0, rem = r0;
    for (int d = last - 1; d >= 0; --d) {     // the multi-index of row r0
      idx[d] = rem % p.shape[d];
      rem /= p.shape[d];
      oa += idx[d] * p.sa[d];
      ob += idx[d] * p.sb[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      fn(a + oa, b + ob, o + r * n * es, n, c);
      for (int d = last - 1; d >= 0; --d) {   // odometer step
        ++idx[d];
        oa += p.sa[d];
        ob += p.sb[d];
        if (idx[d] < p.shape[d]) break;
        oa -= idx[d] * p.sa[d];
        ob -= idx[d] * p.sb[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace
}  // namespace eltwise
}  // namespace onert_neon
