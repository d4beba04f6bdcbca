// Scalar fixed-point primitives of TFLite's integer requantization, in int64 (exact), shared by
// the portable code of the group (qgemm.cpp, qadd.cpp, qmean.cpp). Internal linkage (anonymous
// namespace): no definition is shared between translation units of different ISA levels.
#pragma once

#include <cstdint>

namespace onert_neon {
namespace quant {
namespace {

// the int32 value of x's low 32 bits (wraps as the int32 arithmetic does)
inline int64_t wrap32(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }

// gemmlowp's SaturatingRoundingDoublingHighMul of int32 values (halves away from zero)
inline int64_t srdhm(int64_t a, int64_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = a * b;
  const int64_t s = ab + (ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30));
  return s >= 0 ? s >> 31 : -((-s) >> 31);
}

// gemmlowp's RoundingDivideByPOT: x / 2^e, halves away from zero
inline int64_t rdbp(int64_t x, int32_t e) {
  const int64_t mask = (int64_t{1} << e) - 1, rem = x & mask;
  return (x >> e) + (rem > (mask >> 1) + (x < 0 ? 1 : 0) ? 1 : 0);
}

// x / 2^e with halves rounded up (the vector MultiplyByQuantizedMultiplier's final shift)
inline int64_t rshift_half_up(int64_t x, int32_t e) {
  return (x + ((int64_t{1} << e) >> 1)) >> e;
}

}  // namespace
}  // namespace quant
}  // namespace onert_neon
