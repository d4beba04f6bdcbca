// Quantized 8-bit ADD / SUB of two same-shape tensors with TFLite's exact integer arithmetic
// (add.cc / sub.cc; see core/ops/binary_arithmetic.py for the derivation):
//   scalar elements (loop tails, SUB): x_i = RDBP(SRDHM((q_i - zp_i) << 20, m_i), -e_i);
//     y = RDBP(SRDHM(x1 +- x2, mo), -eo) + zpo, clamped to [lo, hi]
//   vector elements (the first n - n % width of the optimized ADD's flat loop):
//     x_i = shift_first ? vqrdmulh(shl(q_i - zp_i, 20 + e_i), m_i)
//                       : vqrdmulh((q_i - zp_i) << 20, m_i) >> -e_i
//     y = wrap16(wrap16(RDBP(vqrdmulh(x1 + x2, mo), -eo)) + zpo), clamped to [lo, hi]
// (SRDHM / RDBP: gemmlowp's, halves away from zero; vqrdmulh: halves rounded up; shl with a
// negative count: arithmetic right shift). The multipliers are in [0, 2^31), every e in
// [-31, 0] (checked by the binding).
#pragma once

#include <cstdint>

namespace onert_neon {
namespace quant {

struct AddParams {
  int32_t zp1, zp2, zpo;
  int32_t m1, e1, m2, e2, mo, eo;
  int32_t lo, hi;
  bool sub, x_signed, shift_first;
  int64_t width;                   // vector loop width (0: every element scalar)
  // set by add_bound_wraps: no vector element's RDBP result comes near the int16 range, so
  // both wrap16 steps are identities (the AVX-512 lanes then skip them)
  bool wrap_free = false;
};

// Sets p.wrap_free from the largest |x1 +- x2| any pair of codes gives (call once p is set).
void add_bound_wraps(AddParams& p);

// out[i] = a[i] +- b[i] for i < n (8-bit codes, int8 when p.x_signed)
void qadd(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n,
          int threads);
// the vector-lane arithmetic on elements [i0, i1), one at a time (portable)
void qadd_vector_scalar(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1);
#if defined(__x86_64__)
void qadd_vector_avx2(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                      int64_t i0, int64_t i1);
void qadd_vector_avx512(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1);
#endif

}  // namespace quant
}  // namespace onert_neon
