// Quantized ADD / SUB: portable arithmetic (int64, exact) and the ISA dispatch.
#include "qadd.h"

#include "isa.h"
#include "parallel.h"

namespace onert_neon {
namespace quant {

namespace {

inline int64_t srdhm(int64_t a, int64_t b) {          // gemmlowp SaturatingRoundingDoublingHighMul
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = a * b;
  const int64_t s = ab + (ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30));
  return s >= 0 ? s >> 31 : -((-s) >> 31);
}

inline int64_t rdbp(int64_t x, int32_t e) {           // RoundingDivideByPOT
  const int64_t mask = (int64_t{1} << e) - 1, rem = x & mask;
  const int64_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > thr ? 1 : 0);
}

inline int64_t vqrdmulh_up(int64_t a, int64_t b) {     // NEON vqrdmulh: halves rounded up
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return (a * b + (int64_t{1} << 30)) >> 31;
}

inline int64_t wrap32(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }
inline int64_t wrap16(int64_t x) { return static_cast<int16_t>(static_cast<uint16_t>(x)); }

inline int64_t shl(int64_t x, int32_t n) {
  return n >= 0 ? wrap32(x * (int64_t{1} << n)) : x >> -n;
}

inline int64_t code(const uint8_t* p, int64_t i, bool s) {
  return s ? int64_t(static_cast<int8_t>(p[i])) : int64_t(p[i]);
}

inline uint8_t clamp_code(int64_t v, int32_t lo, int32_t hi) {
  v = v < lo ? lo : (v > hi ? hi : v);
  return static_cast<uint8_t>(v & 0xFF);
}

void scalar_range(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                  int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; ++i) {
    const int64_t x1 = rdbp(srdhm((code(a, i, p.x_signed) - p.zp1) << 20, p.m1), -p.e1);
    const int64_t x2 = rdbp(srdhm((code(b, i, p.x_signed) - p.zp2) << 20, p.m2), -p.e2);
    const int64_t raw = p.sub ? x1 - x2 : x1 + x2;
    out[i] = clamp_code(rdbp(srdhm(raw, p.mo), -p.eo) + p.zpo, p.lo, p.hi);
  }
}

}  // namespace

void qadd_vector_scalar(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; ++i) {
    int64_t x[2];
    for (int k = 0; k < 2; ++k) {
      const int64_t q = code(k ? b : a, i, p.x_signed) - (k ? p.zp2 : p.zp1);
      const int32_t m = k ? p.m2 : p.m1, e = k ? p.e2 : p.e1;
      x[k] = p.shift_first ? vqrdmulh_up(shl(q, 20 + e), m) : vqrdmulh_up(shl(q, 20), m) >> -e;
    }
    const int64_t raw = wrap32(p.sub ? x[0] - x[1] : x[0] + x[1]);
    const int64_t v = wrap16(wrap16(rdbp(vqrdmulh_up(raw, p.mo), -p.eo)) + p.zpo);
    out[i] = clamp_code(v, p.lo, p.hi);
  }
}

void qadd(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n,
          int threads) {
  const int64_t nvec = p.width > 0 ? n - n % p.width : 0;
  parallel_range(threads, n, int64_t{1} << 14, [&](int64_t i0, int64_t i1) {
    const int64_t v1 = i1 < nvec ? i1 : nvec;
    if (i0 < v1) {
      switch (active_isa()) {
#if defined(__x86_64__)
        case Isa::Avx512: qadd_vector_avx512(p, a, b, out, i0, v1); break;
        case Isa::Avx2: qadd_vector_avx2(p, a, b, out, i0, v1); break;
#endif
        default: qadd_vector_scalar(p, a, b, out, i0, v1); break;
      }
    }
    scalar_range(p, a, b, out, i0 > nvec ? i0 : nvec, i1);
  });
}

}  // namespace quant
}  // namespace onert_neon
