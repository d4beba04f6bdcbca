// GGML blocks, baseline ISA: the formats, fp16 conversions, dequantization and GATHER, the
// activations' quantization, the portable FULLY_CONNECTED kernel (NEON block dots on aarch64,
// plain integer loops elsewhere) and the dispatch to the AVX2 / AVX-512 kernels.
#include "ggml.h"

#include <cmath>
#include <cstring>

#include "isa.h"
#include "parallel.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace onert_neon {

int ggml_block_bytes(GgmlType t) {
  switch (t) {
    case GgmlType::Q4_0: return 18;
    case GgmlType::Q4_1: return 20;
    case GgmlType::Q8_0: return 34;
    case GgmlType::Q8_1: return 36;
  }
  return 0;
}

bool ggml_type_of(const char* name, GgmlType* out) {
  static const struct { const char* name; GgmlType t; } names[] = {
      {"GGML_Q4_0", GgmlType::Q4_0}, {"GGML_Q4_1", GgmlType::Q4_1},
      {"GGML_Q8_0", GgmlType::Q8_0}, {"GGML_Q8_1", GgmlType::Q8_1}};
  for (const auto& n : names)
    if (std::strcmp(name, n.name) == 0) { *out = n.t; return true; }
  return false;
}

float fp16_to_fp32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0) {                                   // zero or subnormal: m * 2^-24, exact
    const float v = static_cast<float>(m) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  const uint32_t bits = sign | (e == 31 ? 0x7F800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t fp32_to_fp16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);   // NaN
  if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: inf
  if (ax < 0x38800000u) {                        // below 2^-14: a multiple of 2^-24
    float a;
    std::memcpy(&a, &ax, sizeof a);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t h = ((((ax >> 23) - 112) << 10) | ((ax >> 13) & 0x3FFu));
  const uint32_t rest = ax & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;   // to nearest, ties to even
  return static_cast<uint16_t>(sign | h);
}

namespace {

// the fp16 at p as a float (aarch64: the hardware conversion)
inline float half_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
#if defined(__aarch64__)
  return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
#else
  return fp16_to_fp32(h);
#endif
}

inline int header_bytes(GgmlType t) {
  return t == GgmlType::Q4_1 || t == GgmlType::Q8_1 ? 4 : 2;
}

// sum_j q_w[j] * q_x[j] of one block: 4-bit values as stored (0..15), 8-bit ones signed
template <GgmlType T>
inline int32_t block_dot(const uint8_t* qs, const int8_t* xq) {
  constexpr bool four = T == GgmlType::Q4_0 || T == GgmlType::Q4_1;
#if defined(__aarch64__)
  int16x8_t p0, p1;
  const int8x16_t x0 = vld1q_s8(xq), x1 = vld1q_s8(xq + 16);
  if (four) {
    const uint8x16_t v = vld1q_u8(qs);
    const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(0x0F)));
    const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
    p0 = vmlal_s8(vmull_s8(vget_low_s8(lo), vget_low_s8(x0)), vget_high_s8(lo), vget_high_s8(x0));
    p1 = vmlal_s8(vmull_s8(vget_low_s8(hi), vget_low_s8(x1)), vget_high_s8(hi), vget_high_s8(x1));
  } else {     // two products of at most 128 * 127 fit an int16 lane
    const int8x16_t w0 = vld1q_s8(reinterpret_cast<const int8_t*>(qs));
    const int8x16_t w1 = vld1q_s8(reinterpret_cast<const int8_t*>(qs) + 16);
    p0 = vmlal_s8(vmull_s8(vget_low_s8(w0), vget_low_s8(x0)), vget_high_s8(w0), vget_high_s8(x0));
    p1 = vmlal_s8(vmull_s8(vget_low_s8(w1), vget_low_s8(x1)), vget_high_s8(w1), vget_high_s8(x1));
  }
  return vaddvq_s32(vpadalq_s16(vpaddlq_s16(p0), p1));
#else
  int32_t s = 0;
  if (four) {
    for (int j = 0; j < 16; ++j)
      s += (qs[j] & 0x0F) * xq[j] + (qs[j] >> 4) * xq[j + 16];
  } else {
    for (int j = 0; j < 32; ++j) s += static_cast<int8_t>(qs[j]) * xq[j];
  }
  return s;
#endif
}

template <GgmlType T>
void cols_base(const GgmlFcArgs& a, int64_t n0, int64_t n1) {
  const int64_t nb = a.K / kGgmlBlock, bb = ggml_block_bytes(T);
  const GgmlActs& x = *a.acts;
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* wr = a.w + n * nb * bb;
    for (int64_t m = 0; m < a.M; ++m) {
      const int8_t* xq = x.q.data() + m * a.K;
      const float* dx = x.d.data() + m * nb;
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = wr + b * bb;
        int32_t sumi = block_dot<T>(blk + header_bytes(T), xq + b * kGgmlBlock);
        if (T == GgmlType::Q4_0) sumi += x.corr[m * nb + b];
        acc += static_cast<float>(sumi) * (half_at(blk) * dx[b]);
        if (T == GgmlType::Q4_1) acc += half_at(blk + 2) * (x.s8[m * nb + b] * 8.0f);
      }
      if (a.bias) acc += a.bias[n];
      a.y[m * a.N + n] = std::fmin(std::fmax(acc, a.lo), a.hi);
    }
  }
}

}  // namespace

void ggml_dequantize(GgmlType t, const uint8_t* src, int64_t count, float* dst) {
  const int64_t bb = ggml_block_bytes(t);
  for (int64_t b = 0; b < count; ++b, src += bb, dst += kGgmlBlock) {
    const float d = half_at(src);
    if (t == GgmlType::Q4_1) {                 // q * d is exact: one rounding, of + m
      const float m = half_at(src + 2);
      const uint8_t* qs = src + 4;
      for (int j = 0; j < 16; ++j) {
        dst[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
        dst[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
      }
    } else if (t == GgmlType::Q4_0) {
      const uint8_t* qs = src + 2;
      for (int j = 0; j < 16; ++j) {
        dst[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
        dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
      }
    } else {
      const int8_t* qs = reinterpret_cast<const int8_t*>(src + header_bytes(t));
      for (int j = 0; j < 32; ++j) dst[j] = static_cast<float>(qs[j]) * d;
    }
  }
}

void ggml_quantize_acts(const float* x, int64_t rows, int64_t K, GgmlType for_type,
                        GgmlActs& out, int threads) {
  const int64_t nb = K / kGgmlBlock;
  out.rows = rows;
  out.K = K;
  out.q.resize(static_cast<size_t>(rows * K));
  out.d.resize(static_cast<size_t>(rows * nb));
  out.s8.resize(for_type == GgmlType::Q4_1 ? static_cast<size_t>(rows * nb) : 0);
  out.corr.resize(for_type == GgmlType::Q4_0 ? static_cast<size_t>(rows * nb) : 0);
  const int64_t grain = 16384 / kGgmlBlock;
  parallel_range(threads, rows * nb, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) {       // block i: GGML's NEON quantize_row_q8_0/_q8_1
      const float* v = x + i * kGgmlBlock;
      float amax = 0.0f;
      for (int j = 0; j < kGgmlBlock; ++j) amax = std::fmax(amax, std::fabs(v[j]));
      const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
      int8_t* q = out.q.data() + i * kGgmlBlock;
      int32_t sum = 0;
      for (int j = 0; j < kGgmlBlock; ++j) {
        q[j] = static_cast<int8_t>(std::nearbyint(v[j] * id));   // halves to even
        sum += q[j];
      }
      out.d[i] = fp16_to_fp32(fp32_to_fp16(d));
      if (!out.s8.empty())
        out.s8[i] = fp16_to_fp32(fp32_to_fp16(static_cast<float>(sum) * d)) * 0.125f;
      if (!out.corr.empty()) out.corr[i] = -8 * sum;
    }
  });
}

void ggml_fc_cols_base(const GgmlFcArgs& a, int64_t n0, int64_t n1) {
  switch (a.type) {
    case GgmlType::Q4_0: return cols_base<GgmlType::Q4_0>(a, n0, n1);
    case GgmlType::Q4_1: return cols_base<GgmlType::Q4_1>(a, n0, n1);
    case GgmlType::Q8_0: return cols_base<GgmlType::Q8_0>(a, n0, n1);
    case GgmlType::Q8_1: return cols_base<GgmlType::Q8_1>(a, n0, n1);
  }
}

void ggml_fc(const GgmlFcArgs& a, int threads) {
  void (*fn)(const GgmlFcArgs&, int64_t, int64_t) = ggml_fc_cols_base;
#if defined(__x86_64__)
  switch (active_isa()) {
    case Isa::Avx512: fn = ggml_fc_cols_avx512; break;
    case Isa::Avx2: fn = ggml_fc_cols_avx2; break;
    default: break;
  }
#endif
  // a thread's share must be worth a fork/join: at least ~256 KiB of weights (times rows)
  const int64_t col_bytes = a.K / kGgmlBlock * ggml_block_bytes(a.type) * (a.M > 0 ? a.M : 1);
  const int64_t grain = col_bytes >= (int64_t{1} << 18) ? 1 : (int64_t{1} << 18) / col_bytes;
  parallel_range(threads, a.N, grain, [&](int64_t n0, int64_t n1) { fn(a, n0, n1); });
}

template <class Index>
int64_t ggml_gather(const GgmlGatherArgs& a, const Index* indices, int threads) {
  const int64_t count = a.batch * a.n_idx;
  for (int64_t i = 0; i < count; ++i)
    if (indices[i] < 0 || indices[i] >= a.limit) return i;
  const int64_t row_bytes = a.row_blocks * ggml_block_bytes(a.type);
  const int64_t row_floats = a.row_blocks * kGgmlBlock;
  const int64_t rows = a.batch * a.outer * a.n_idx;
  const int64_t grain = row_floats >= 4096 ? 1 : 4096 / row_floats + 1;
  parallel_range(threads, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bo = r / a.n_idx, i = r % a.n_idx, b = bo / a.outer;
      const int64_t src_row = bo * a.limit + static_cast<int64_t>(indices[b * a.n_idx + i]);
      ggml_dequantize(a.type, a.params + src_row * row_bytes, a.row_blocks,
                      a.out + r * row_floats);
    }
  });
  return -1;
}

template int64_t ggml_gather<int32_t>(const GgmlGatherArgs&, const int32_t*, int);
template int64_t ggml_gather<int64_t>(const GgmlGatherArgs&, const int64_t*, int);

}  // namespace onert_neon
