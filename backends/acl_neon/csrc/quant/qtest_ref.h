// Test-only helpers of the quant C++ tests: scalar references (TFLite's integer arithmetic
// written directly in int64) and the construction of the native Requant constants, as
// core/ops/conv2d.py's ConvRequant builds them. Included by test_quant*.cpp only.
#pragma once

#include <cstdint>
#include <vector>

#include "qgemm.h"

namespace qtest {

// deterministic pseudo-random numbers (xorshift), uniform in [lo, hi]
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  int64_t uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

// gemmlowp SaturatingRoundingDoublingHighMul, as written in gemmlowp (int64 product, nudge,
// truncating division)
inline int32_t srdhm_ref(int32_t a, int32_t b) {
  bool overflow = a == b && a == INT32_MIN;
  int64_t ab = int64_t(a) * int64_t(b);
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  int32_t hi = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
  return overflow ? INT32_MAX : hi;
}

// gemmlowp RoundingDivideByPOT (halves away from zero)
inline int32_t rdbpot_ref(int32_t x, int e) {
  int32_t mask = static_cast<int32_t>((int64_t{1} << e) - 1);
  int32_t rem = x & mask;
  int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > thr ? 1 : 0);
}

// the vector unit's rounding shift right (vrshl by -e): halves up
inline int32_t rshift_up_ref(int32_t x, int e) {
  if (e == 0) return x;
  int64_t v = int64_t(x) + (int64_t{1} << (e - 1));
  return static_cast<int32_t>(v >= 0 ? v >> e : -((-v + (int64_t{1} << e) - 1) >> e));
}

// One channel's TFLite requantization of an accumulator (without bias):
// MultiplyByQuantizedMultiplier(acc + bias, mult, shift) + zp, clamped; `tail` selects the
// reference kernel's rounding (RoundingDivideByPOT) instead of the vector kernel's.
inline int32_t requant_ref(int64_t acc, int32_t bias, int32_t mult, int shift, bool tail,
                           int32_t zp, int32_t lo, int32_t hi) {
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  int32_t x = static_cast<int32_t>(acc + bias);
  int32_t h = srdhm_ref(static_cast<int32_t>(int64_t(x) * (int64_t{1} << left)), mult);
  int32_t y = tail ? rdbpot_ref(h, right) : rshift_up_ref(h, right);
  int64_t v = int64_t(y) + zp;
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

// The native constants (qconv.ConvRequant, mode "q31") of per-channel multipliers/shifts/
// biases; channels [split, n) round as the reference kernel does; zp folded into k if `fold`.
struct RequantBuild {
  std::vector<int64_t> m, k, thresh, dfix;
  std::vector<int32_t> s;
  onert_neon::quant::RequantVecStore vstore;
  onert_neon::quant::Requant rq{};

  // attach the vector form (RequantVec); false when these constants have none
  bool use_vec() {
    vstore.attach(rq, static_cast<int64_t>(m.size()));
    return rq.vec != nullptr;
  }

  RequantBuild(const std::vector<int32_t>& mult, const std::vector<int>& shift,
               const std::vector<int32_t>& bias, int64_t split, int32_t zp, bool fold,
               int32_t lo, int32_t hi) {
    const size_t n = mult.size();
    m.resize(n); k.resize(n); thresh.resize(n); dfix.resize(n); s.resize(n);
    for (size_t c = 0; c < n; ++c) {
      int64_t left = shift[c] > 0 ? shift[c] : 0, right = shift[c] > 0 ? 0 : -shift[c];
      m[c] = int64_t(mult[c]) << left;
      s[c] = static_cast<int32_t>(31 + right);
      k[c] = int64_t(bias[c]) * m[c] + (int64_t{1} << 30) +
             (right > 0 ? int64_t{1} << (30 + right) : 0);
      bool tail = static_cast<int64_t>(c) >= split;
      thresh[c] = tail ? k[c] - int64_t(bias[c]) * m[c] - (int64_t{1} << 30) : INT64_MIN;
      dfix[c] = tail && right > 0 ? int64_t{1} << 31 : 0;
      if (fold) {
        k[c] += int64_t(zp) << s[c];
        if (tail) thresh[c] += int64_t(zp) << s[c];
      }
    }
    rq.m = m.data(); rq.k = k.data(); rq.thresh = thresh.data(); rq.dfix = dfix.data();
    rq.s = s.data();
    rq.zp_add = fold ? 0 : zp;
    rq.lo = lo;
    rq.hi = hi;
  }
};

// the reference convolution sum at output (n, oy, ox): f(pixel, tap) summed over the taps that
// read a real input pixel; pixel = (n * ih + iy) * iw + ix, tap = ky * kw + kx
template <class F>
int64_t tap_sum_ref(const onert_neon::quant::ConvGeom& g, int64_t n, int64_t oy, int64_t ox,
                    F f) {
  int64_t acc = 0;
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      int64_t iy = oy * g.sh - g.pad_top + ky * g.dh, ix = ox * g.sw - g.pad_left + kx * g.dw;
      if (iy < 0 || iy >= g.ih || ix < 0 || ix >= g.iw) continue;
      acc += f((n * g.ih + iy) * g.iw + ix, ky * g.kw + kx);
    }
  return acc;
}

// per-channel quantization parameters covering the interesting cases: multipliers in
// [2^30, 2^31) incl. exactly 2^30 (many ties), right shifts 0..9, small left shifts
struct ChannelParams {
  std::vector<int32_t> mult, bias;
  std::vector<int> shift;
  // right_only: shifts -1..-9 only (the constants the vector form RequantVec takes)
  ChannelParams(int64_t n, Rng& rng, int32_t bias_range, bool right_only = false) {
    for (int64_t c = 0; c < n; ++c) {
      mult.push_back(c % 3 == 0 ? (1 << 30) : static_cast<int32_t>(rng.uniform(1 << 30, INT32_MAX)));
      if (right_only)
        shift.push_back(-static_cast<int>(rng.uniform(1, 9)));
      else
        shift.push_back(c % 7 == 6 ? static_cast<int>(c % 2) + 1 : -static_cast<int>(rng.uniform(0, 9)));
      bias.push_back(static_cast<int32_t>(rng.uniform(-bias_range, bias_range)));
    }
  }
};

}  // namespace qtest
