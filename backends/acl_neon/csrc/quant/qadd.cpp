// Quantized ADD / SUB: portable arithmetic (int64, exact), the NEON vector lanes (aarch64:
// TFLite's optimized arithmetic with the very instructions it uses) and the ISA dispatch.
#include "qadd.h"

#include <algorithm>

#include "isa.h"
#include "parallel.h"
#include "qfixed.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {
namespace quant {

namespace {

inline int64_t vqrdmulh_up(int64_t a, int64_t b) {     // NEON vqrdmulh: halves rounded up
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return (a * b + (int64_t{1} << 30)) >> 31;
}

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


#if defined(__aarch64__)
// the vector elements 8 at a time (qadd.h): vshl / vqrdmulh per input, wrapping int32 sum,
// vqrdmulh and gemmlowp's RoundingDivideByPOT, wrapping narrow to int16, + zpo (int16),
// saturating narrow to 8 bits, clamp
inline int32x4_t neon_input(int32x4_t q, int32_t zp, int32_t m, int32_t e, bool shift_first) {
  q = vsubq_s32(q, vdupq_n_s32(zp));
  if (shift_first) return vqrdmulhq_s32(vshlq_s32(q, vdupq_n_s32(20 + e)), vdupq_n_s32(m));
  return vshlq_s32(vqrdmulhq_s32(vshlq_n_s32(q, 20), vdupq_n_s32(m)), vdupq_n_s32(e));
}

inline int32x4_t neon_output(int32x4_t raw, int32_t mo, int32_t eo, int32x4_t vmask,
                             int32x4_t vthr) {
  const int32x4_t h = vqrdmulhq_s32(raw, vdupq_n_s32(mo));
  const int32x4_t neg = vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(h), 31));
  const uint32x4_t up = vcgtq_s32(vandq_s32(h, vmask), vaddq_s32(vthr, neg));
  return vsubq_s32(vshlq_s32(h, vdupq_n_s32(eo)), vreinterpretq_s32_u32(up));   // up: -1
}

void qadd_vector_neon_impl(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                      int64_t i0, int64_t i1) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << -p.eo) - 1);
  const int32x4_t vmask = vdupq_n_s32(mask), vthr = vdupq_n_s32(mask >> 1);
  const int16x8_t zpo = vdupq_n_s16(static_cast<int16_t>(p.zpo));
  int64_t i = i0;
  for (; i + 8 <= i1; i += 8) {
    const uint8x8_t ra = vld1_u8(a + i), rb = vld1_u8(b + i);
    const int16x8_t wa = p.x_signed ? vmovl_s8(vreinterpret_s8_u8(ra))
                                    : vreinterpretq_s16_u16(vmovl_u8(ra));
    const int16x8_t wb = p.x_signed ? vmovl_s8(vreinterpret_s8_u8(rb))
                                    : vreinterpretq_s16_u16(vmovl_u8(rb));
    int32x4_t v[2];
    for (int h = 0; h < 2; ++h) {
      const int32x4_t qa = vmovl_s16(h ? vget_high_s16(wa) : vget_low_s16(wa));
      const int32x4_t qb = vmovl_s16(h ? vget_high_s16(wb) : vget_low_s16(wb));
      const int32x4_t x1 = neon_input(qa, p.zp1, p.m1, p.e1, p.shift_first);
      const int32x4_t x2 = neon_input(qb, p.zp2, p.m2, p.e2, p.shift_first);
      const int32x4_t raw = p.sub ? vsubq_s32(x1, x2) : vaddq_s32(x1, x2);
      v[h] = neon_output(raw, p.mo, p.eo, vmask, vthr);
    }
    const int16x8_t s = vaddq_s16(vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1])), zpo);
    uint8x8_t r;
    if (p.x_signed) {
      const int8x8_t c = vmax_s8(vmin_s8(vqmovn_s16(s), vdup_n_s8(static_cast<int8_t>(p.hi))),
                                 vdup_n_s8(static_cast<int8_t>(p.lo)));
      r = vreinterpret_u8_s8(c);
    } else {
      r = vmax_u8(vmin_u8(vqmovun_s16(s), vdup_n_u8(static_cast<uint8_t>(p.hi))),
                  vdup_n_u8(static_cast<uint8_t>(p.lo)));
    }
    vst1_u8(out + i, r);
  }
  if (i < i1) qadd_vector_scalar(p, a, b, out, i, i1);
}
#endif

}  // namespace

// input k's scaled value x_k of a vector element whose code is `c` (qadd.h)
static int64_t lane_input(const AddParams& p, int k, int64_t c) {
  const int64_t q = c - (k ? p.zp2 : p.zp1);
  const int32_t m = k ? p.m2 : p.m1, e = k ? p.e2 : p.e1;
  return p.shift_first ? vqrdmulh_up(shl(q, 20 + e), m) : vqrdmulh_up(shl(q, 20), m) >> -e;
}

void qadd_vector_scalar(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out,
                        int64_t i0, int64_t i1) {
  for (int64_t i = i0; i < i1; ++i) {
    const int64_t x[2] = {lane_input(p, 0, code(a, i, p.x_signed)),
                          lane_input(p, 1, code(b, i, p.x_signed))};
    const int64_t raw = wrap32(p.sub ? x[0] - x[1] : x[0] + x[1]);
    const int64_t v = wrap16(wrap16(rdbp(vqrdmulh_up(raw, p.mo), -p.eo)) + p.zpo);
    out[i] = clamp_code(v, p.lo, p.hi);
  }
}

void add_bound_wraps(AddParams& p) {
  // |x_i| over every code, by the lane arithmetic itself; x_i is at most 255 * 2^20 < 2^28, so
  // |raw| < 2^29 and vqrdmulh / RDBP only shrink it
  int64_t xmax[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    for (int c = 0; c < 256; ++c) {
      const uint8_t byte = static_cast<uint8_t>(c);
      const int64_t x = lane_input(p, k, code(&byte, 0, p.x_signed));
      xmax[k] = std::max(xmax[k], x < 0 ? -x : x);
    }
  const int64_t h = vqrdmulh_up(xmax[0] + xmax[1], p.mo) + 1;
  const int64_t r = rdbp(h, -p.eo) + 1;
  p.wrap_free = r + 256 < 32767;
}

void qadd(const AddParams& p, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n,
          int threads) {
  const int64_t nvec = p.width > 0 ? n - n % p.width : 0;
  // 4096 elements a thread at least: about 2.4 us of AVX-512 work (0.6 ns an element), eight
  // times the pool's fork and join, so MobileNetV2's 14x14x64 and 7x7x160 residual ADDs split
  parallel_range(threads, n, int64_t{1} << 12, [&](int64_t i0, int64_t i1) {
    const int64_t v1 = i1 < nvec ? i1 : nvec;
    if (i0 < v1) {
      switch (active_isa()) {
#if defined(__x86_64__)
        case Isa::Avx512: qadd_vector_avx512(p, a, b, out, i0, v1); break;
        case Isa::Avx2: qadd_vector_avx2(p, a, b, out, i0, v1); break;
#endif
#if defined(__aarch64__)
        case Isa::Neon: qadd_vector_neon_impl(p, a, b, out, i0, v1); break;
#endif
        default: qadd_vector_scalar(p, a, b, out, i0, v1); break;
      }
    }
    scalar_range(p, a, b, out, i0 > nvec ? i0 : nvec, i1);
  });
}

}  // namespace quant
}  // namespace onert_neon
