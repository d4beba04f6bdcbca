// C++ tests of the quantized ADD/SUB (qadd.h) and MEAN (qmean.h) against scalar references.
#include <cstdint>
#include <vector>

#include "qadd.h"
#include "qmean.h"
#include "qtest_ref.h"
#include "testing.h"

using namespace onert_neon::quant;
using qtest::Rng;

namespace {

int64_t rdbp(int64_t x, int e) {              // x / 2^e, halves away from zero
  if (e == 0) return x;
  const int64_t d = int64_t{1} << e, q = (x >= 0 ? x : -x) + d / 2;
  return x >= 0 ? q / d : -(q / d);
}
int64_t srdhm(int64_t a, int64_t b) { return rdbp(a * b, 31); }
int64_t vq(int64_t a, int64_t b) {            // halves up: floor((ab + 2^30) / 2^31)
  const int64_t t = a * b + (int64_t{1} << 30);
  return t >= 0 ? t / (int64_t{1} << 31) : -((-t + (int64_t{1} << 31) - 1) / (int64_t{1} << 31));
}
int64_t floor_shift(int64_t x, int e) {
  return x >= 0 ? x >> e : -((-x + (int64_t{1} << e) - 1) >> e);
}
int64_t w16(int64_t x) { return int16_t(uint16_t(x & 0xFFFF)); }

int64_t ref_add(const AddParams& p, int64_t a, int64_t b, bool vec) {
  a -= p.zp1;
  b -= p.zp2;
  int64_t x1, x2;
  if (!vec) {
    x1 = rdbp(srdhm(a * (1 << 20), p.m1), -p.e1);
    x2 = rdbp(srdhm(b * (1 << 20), p.m2), -p.e2);
  } else if (p.shift_first) {
    x1 = vq(floor_shift(a * (1 << 20), -p.e1), p.m1);
    x2 = vq(floor_shift(b * (1 << 20), -p.e2), p.m2);
  } else {
    x1 = floor_shift(vq(a * (1 << 20), p.m1), -p.e1);
    x2 = floor_shift(vq(b * (1 << 20), p.m2), -p.e2);
  }
  const int64_t raw = p.sub ? x1 - x2 : x1 + x2;
  int64_t v = vec ? w16(w16(rdbp(vq(raw, p.mo), -p.eo)) + p.zpo)
                  : rdbp(srdhm(raw, p.mo), -p.eo) + p.zpo;
  return v < p.lo ? p.lo : v > p.hi ? p.hi : v;
}

void check_add(bool x_signed, bool shift_first, bool sub, int64_t width, int64_t n, int threads,
               uint64_t seed) {
  Rng rng(seed);
  AddParams p{};
  const int32_t lo = x_signed ? -128 : 0;
  p.zp1 = lo + int32_t(rng.uniform(0, 255));
  p.zp2 = lo + int32_t(rng.uniform(0, 255));
  p.zpo = lo + int32_t(rng.uniform(0, 255));
  p.m1 = int32_t(rng.uniform(1 << 30, 2147483647));
  p.m2 = int32_t(rng.uniform(1 << 30, 2147483647));
  p.mo = int32_t(rng.uniform(1 << 30, 2147483647));
  p.e1 = -int32_t(rng.uniform(0, 3));
  p.e2 = -int32_t(rng.uniform(0, 3));
  p.eo = -int32_t(rng.uniform(10, 22));
  p.lo = lo + 3;
  p.hi = lo + 250;
  p.sub = sub;
  p.x_signed = x_signed;
  p.shift_first = shift_first;
  p.width = width;
  add_bound_wraps(p);   // as the plan does: realistic scales leave the int16 wraps out
  std::vector<uint8_t> a(n), b(n), out(n + 1, 0xCD);
  for (auto& v : a) v = uint8_t(rng.uniform(0, 255));
  for (auto& v : b) v = uint8_t(rng.uniform(0, 255));
  qadd(p, a.data(), b.data(), out.data(), n, threads);
  const int64_t nvec = width ? n - n % width : 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t av = x_signed ? int8_t(a[i]) : a[i], bv = x_signed ? int8_t(b[i]) : b[i];
    CHECK(out[i] == uint8_t(ref_add(p, av, bv, i < nvec) & 0xFF));
  }
  CHECK(out[n] == 0xCD);
}

}  // namespace

NEON_TEST(qadd_against_reference) {
  uint64_t seed = 1;
  for (bool s : {true, false})
    for (bool sf : {true, false})
      for (bool sub : {false, true})
        for (int64_t n : {1, 15, 16, 17, 100, 40000 + 13})
          for (int t : {1, 2}) check_add(s, sf, sub, sub ? 0 : (s ? 16 : 8), n, t, seed++);
}

NEON_TEST(qmean_against_reference) {
  Rng rng(9);
  for (bool s : {true, false})
    for (bool hw : {true, false})
      for (int t : {1, 2}) {
        MeanParams p{};
        p.outer = 3; p.count = 49; p.inner = 300;
        p.x_signed = s; p.hw = hw;
        p.m = int32_t(rng.uniform(1 << 30, 2147483647));
        p.shift = hw ? -int32_t(rng.uniform(5, 9)) : int32_t(rng.uniform(0, 3)) - 8;
        p.offset = hw ? 17 : 49 * 5;
        p.out_zp = s ? -3 : 130;
        p.lo = s ? -128 : 0; p.hi = s ? 127 : 255;
        p.vec = hw ? 288 : 0;
        std::vector<uint8_t> x(p.outer * p.count * p.inner), out(p.outer * p.inner);
        for (auto& v : x) v = uint8_t(rng.uniform(0, 255));
        qmean(p, x.data(), out.data(), t);
        for (int64_t o = 0; o < p.outer; ++o)
          for (int64_t c = 0; c < p.inner; ++c) {
            int64_t acc = 0;
            for (int64_t k = 0; k < p.count; ++k) {
              const uint8_t v = x[(o * p.count + k) * p.inner + c];
              acc += s ? int8_t(v) : v;
            }
            const int l = p.shift > 0 ? p.shift : 0, r = p.shift < 0 ? -p.shift : 0;
            int64_t v;
            if (hw)
              v = (c < p.vec ? floor_shift(srdhm(acc << l, p.m) + ((int64_t{1} << r) >> 1), r)
                             : rdbp(srdhm(acc << l, p.m), r)) + p.offset;
            else
              v = rdbp(srdhm((acc - p.offset) << l, p.m), r) + p.out_zp;
            v = v < p.lo ? p.lo : v > p.hi ? p.hi : v;
            CHECK(out[o * p.inner + c] == uint8_t(v & 0xFF));
          }
      }
}
