// Quantized SOFTMAX (qsoftmax.h): the portable rows (NEON for the output stage on aarch64)
// and the ISA dispatch.
#include "qsoftmax.h"

#include <cassert>

#include "isa.h"
#include "parallel.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {
namespace quant {

namespace {

// keeps the compiler from fusing the product p = e * inv into the next add (fp-contract)
inline float keep(float v) {
#if defined(__x86_64__)
  __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__("" : "+w"(v));
#endif
  return v;
}

inline int32_t quantize(const SoftmaxParams& p, float prob) {
  if (!(prob < 1073741824.0f)) prob = 1073741824.0f;        // also NaN: clamped below
  int32_t q;
  if (p.round_away) {
    const float r = static_cast<float>(static_cast<int32_t>(prob));   // floor (prob >= 0)
    q = static_cast<int32_t>(r) + (prob - r >= 0.5f ? 1 : 0) + p.zp;
  } else {
    q = static_cast<int32_t>(prob + 0.5f);
  }
  return q < p.lo ? p.lo : (q > p.hi ? p.hi : q);
}

inline void store(const SoftmaxParams& p, void* out, int64_t i, int32_t q) {
  if (p.out_bytes == 2)
    static_cast<int16_t*>(out)[i] = static_cast<int16_t>(q);
  else
    static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(q & 0xFF);
}

#if defined(__aarch64__)
// p_j for j in [0, depth - depth % 4) four at a time, quantized as quantize() does
int64_t neon_output(const SoftmaxParams& p, const uint8_t* row, const float* t, float inv,
                    uint8_t flip, void* out, int64_t base) {
  const int64_t n = p.depth - p.depth % 4;
  const float32x4_t vinv = vdupq_n_f32(inv), half = vdupq_n_f32(0.5f);
  const float32x4_t big = vdupq_n_f32(1073741824.0f);
  const int32x4_t zp = vdupq_n_s32(p.round_away ? p.zp : 0);
  const int32x4_t lo = vdupq_n_s32(p.lo), hi = vdupq_n_s32(p.hi);
  for (int64_t j = 0; j < n; j += 4) {
    const float e[4] = {t[row[j] ^ flip], t[row[j + 1] ^ flip], t[row[j + 2] ^ flip],
                        t[row[j + 3] ^ flip]};
    float32x4_t prob = vmulq_f32(vld1q_f32(e), vinv);
    __asm__("" : "+w"(prob));
    prob = vbslq_f32(vcltq_f32(prob, big), prob, big);  // as quantize(): NaN -> big
    int32x4_t q;
    if (p.round_away) {
      const int32x4_t r = vcvtq_s32_f32(prob);        // truncation = floor here
      const uint32x4_t up = vcgeq_f32(vsubq_f32(prob, vcvtq_f32_s32(r)), half);
      q = vsubq_s32(r, vreinterpretq_s32_u32(up));      // up lanes are -1
    } else {
      q = vcvtq_s32_f32(vaddq_f32(prob, half));
    }
    q = vminq_s32(vmaxq_s32(vaddq_s32(q, zp), lo), hi);
    if (p.out_bytes == 2) {
      vst1_s16(static_cast<int16_t*>(out) + base + j, vmovn_s32(q));
    } else {
      int32_t v[4];
      vst1q_s32(v, q);
      for (int k = 0; k < 4; ++k)
        static_cast<uint8_t*>(out)[base + j + k] = static_cast<uint8_t>(v[k] & 0xFF);
    }
  }
  return n;
}
#endif

}  // namespace

void qsoftmax_rows_scalar(const SoftmaxParams& p, const uint8_t* x, void* out, int64_t r0,
                          int64_t r1) {
  const uint8_t flip = p.x_signed ? 0x80 : 0;
  for (int64_t r = r0; r < r1; ++r) {
    const uint8_t* row = x + r * p.depth;
    uint8_t m = 0;
    for (int64_t j = 0; j < p.depth; ++j) {
      const uint8_t b = row[j] ^ flip;
      m = b > m ? b : m;
    }
    const float* t = p.table + (255 - m);
    float sum = 0.0f;
    for (int64_t j = 0; j < p.depth; ++j) sum += t[row[j] ^ flip];
    const float inv = 1.0f / (sum * p.out_scale);
    int64_t j = 0;
#if defined(__aarch64__)
    if (active_isa() == Isa::Neon) j = neon_output(p, row, t, inv, flip, out, r * p.depth);
#endif
    for (; j < p.depth; ++j)
      store(p, out, r * p.depth + j, quantize(p, keep(t[row[j] ^ flip] * inv)));
  }
}

void qsoftmax(const SoftmaxParams& p, const uint8_t* x, void* out, int threads) {
  assert(p.depth > 0 && p.rows >= 0 && (p.out_bytes == 1 || p.out_bytes == 2));
  assert(p.lo <= p.hi && p.table != nullptr);
  const int64_t grain = (int64_t{1} << 14) / p.depth + 1;
  parallel_range(threads, p.rows, grain, [&](int64_t r0, int64_t r1) {
    switch (active_isa()) {
#if defined(__x86_64__)
      case Isa::Avx512:
      case Isa::Avx2: qsoftmax_rows_avx2(p, x, out, r0, r1); break;
#endif
      default: qsoftmax_rows_scalar(p, x, out, r0, r1); break;
    }
  });
}

}  // namespace quant
}  // namespace onert_neon
