// The vector lanes of the quantized ADD/SUB at each ISA (NEON on aarch64, AVX2 / AVX-512 on
// x86) against the portable lane arithmetic qadd_vector_scalar (qadd.h), at extreme
// multipliers and shifts (left shifts past 20, rounding shifts of 0 and 31, zero and maximal
// multipliers) and every zero point corner.
#include <cstdint>
#include <vector>

#include "qadd.h"
#include "qtest_ref.h"
#include "testing.h"

using namespace onert_neon::quant;
using qtest::Rng;

NEON_TEST(qadd_lanes_extremes) {
  Rng rng(77);
  const int32_t mults[] = {0, 1, 1 << 30, 2147483647};
  int wrap_free = 0, wrapping = 0;   // both forms of the AVX-512 lanes are exercised
  for (bool s : {true, false})
    for (bool sf : {true, false})
      for (int round = 0; round < 48; ++round) {
        AddParams p{};
        const int32_t lo = s ? -128 : 0;
        p.x_signed = s;
        p.shift_first = sf;
        p.sub = round % 2 == 1;
        p.zp1 = round % 3 == 0 ? lo : lo + int32_t(rng.uniform(0, 255));
        p.zp2 = round % 5 == 0 ? lo + 255 : lo + int32_t(rng.uniform(0, 255));
        p.zpo = lo + int32_t(rng.uniform(0, 255));
        p.m1 = round < 16 ? mults[round % 4] : int32_t(rng.uniform(0, 2147483647));
        p.m2 = round < 16 ? mults[(round / 4) % 4] : int32_t(rng.uniform(0, 2147483647));
        p.mo = round % 7 == 0 ? 2147483647 : int32_t(rng.uniform(0, 2147483647));
        p.e1 = -int32_t(round < 24 ? rng.uniform(0, 31) : rng.uniform(0, 4));
        p.e2 = -int32_t(round < 24 ? rng.uniform(0, 31) : rng.uniform(0, 4));
        p.eo = round % 4 == 0 ? 0 : (round % 4 == 1 ? -31 : -int32_t(rng.uniform(0, 31)));
        p.lo = round % 2 ? lo : lo + int32_t(rng.uniform(0, 100));
        p.hi = round % 2 ? lo + 255 : lo + int32_t(rng.uniform(155, 255));
        p.width = 8;
        add_bound_wraps(p);
        ++(p.wrap_free ? wrap_free : wrapping);
        const int64_t n = 256 * 3 + 5;          // every code against varied partners
        std::vector<uint8_t> a(n), b(n), got(n), want(n);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = uint8_t(i & 0xFF);
          b[i] = uint8_t(rng.uniform(0, 255));
        }
        for (int t : {1, 2}) {
          qadd(p, a.data(), b.data(), got.data(), n, t);
          qadd_vector_scalar(p, a.data(), b.data(), want.data(), 0, n - n % 8);
          bool same = true;
          for (int64_t i = 0; i < n - n % 8; ++i) same = same && got[i] == want[i];
          CHECK(same);
        }
      }
  CHECK(wrap_free > 10 && wrapping > 10);
}
