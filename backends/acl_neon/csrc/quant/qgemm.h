// Quantized (8-bit) GEMM / convolution with exact int32 accumulation and TFLite's requantization.
//
// The product of int8/uint8 activations and 8-bit weights is computed as u8 x s8 dot products:
//   int8 input:  a = x + 128 (uint8), b = w (int8)        acc = a.b - (128 + x_zp) * sum(w)
//   uint8 input: a = x (uint8), b = w - 128 (int8)         acc = a.b + (128 - w_zp) * sum(a)
//                                                                - x_zp * sum(w - w_zp)
// i.e. acc = a.b + rcoef * rowsum(a) + ccoef[n], exactly sum (x - x_zp)(w - w_zp) (padding taps
// hold a = the input zero point's code, so they contribute 0). a.b is exact in int32 while
// K * 255 * 128 < 2^31 (the Python side refuses larger K).
//
// The requantization (`Requant`) is core/ops/conv2d.py's ConvRequant in int64:
//   t = acc * m[c] + k[c];  if (t < thresh[c]) t -= dfix[c];  y = (t >> s[c]) + zp_add;
//   y = clamp(y, lo, hi)
// (thresh = INT64_MIN on channels rounded by the vector path, so only the reference-rounded
// channels get the correction). Products wrap modulo 2^64 as NumPy's int64 does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onert_neon {
namespace quant {

constexpr int kNB = 16;            // output channels per packed weight block

struct RequantVec;

struct Requant {
  const int64_t* m;                // per channel (n entries each)
  const int64_t* k;
  const int64_t* thresh;
  const int64_t* dfix;
  const int32_t* s;
  int32_t zp_add;
  int32_t lo, hi;
  // fully connected (fc = true): TFLite's vector MultiplyByQuantizedMultiplier instead:
  // a = wrap32(acc + bias[c]); h = SRDHM(wrap32(a << left[c]), m[c]);
  // y = ((h + ((1 << s[c]) >> 1)) >> s[c]) + zp_add, clamped (k, thresh, dfix unused)
  bool fc = false;
  const int32_t* left = nullptr;
  const int32_t* bias = nullptr;
  // fc mode: m as int32, zero-padded by 32 entries (the AVX-512 form, set by
  // RequantVecStore::attach; nullptr: none)
  const int32_t* fc_m32 = nullptr;
  // the vector form of these constants (conv mode, see RequantVec) and the channel of
  // `vec` that is this Requant's channel 0 (from_channel advances it)
  const RequantVec* vec = nullptr;
  int64_t vec_c0 = 0;

  // the constants of the channels from c0 on (for a row requantized in pieces)
  Requant from_channel(int64_t c0) const;
};

// The conv requantization rearranged for 32-bit SIMD lanes, where every multiplier fits int32
// and every shift s is in [32, 63]: with t = acc * m + k (int64, acc and m int32: a
// vpmuldq/vmull product), t >> s = (t >> 32) >> (s - 32), i.e. the high half of t shifted by
// sh32 = s - 32 in 32-bit lanes. The 64-bit constants are stored twice, in groups of 8 and 16
// channels ([even channels][odd channels] per group), the layouts of the AVX2 / AVX-512 even
// and odd products; arrays are zero-padded to a multiple of 32 channels (thresh: INT64_MIN),
// m32 by 16 more (the AVX-512 form reads m32 + c + 1).
// The clamp is done before the zero point is added (lo_z = lo - zp, hi_z = hi - zp), which is
// the same result without int32 overflow.
struct RequantVec {
  const int32_t* m32;
  const int32_t* sh32;
  const int64_t *k8, *k16, *th8, *th16, *df8, *df16;
  bool fix;                        // some channel has the reference rounding correction
  int32_t zp, lo_z, hi_z;
};

class RequantVecStore {
 public:
  // Sets rq.vec (conv mode; not when a multiplier is beyond int32 or a shift below 32) or
  // rq.fc_m32 (fc mode, multipliers in [0, 2^31)) to this store's vector form of rq's n
  // channels, where the constants allow one.
  void attach(Requant& rq, int64_t n);

 private:
  bool build(const Requant& rq, int64_t n);
  std::vector<int32_t> m32_, sh32_;
  std::vector<int64_t> k8_, k16_, th8_, th16_, df8_, df16_;
  RequantVec v_{};
};

// One row of int32 accumulators (n channels, without ccoef/rowsum terms: those are `extra`
// per channel plus `row_add` for the whole row) requantized into 8-bit outputs.
void requant_row(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                 const Requant& rq, uint8_t* out);

// Packed weights: [ceil(n / 16)][kp / 4][16][4] int8, zero-filled past n and k.
void pack_weights(const int8_t* w, int64_t n, int64_t k, int64_t kp, int8_t* packed);
inline int64_t packed_size(int64_t n, int64_t kp) { return (n + kNB - 1) / kNB * kNB * kp; }

// c[r * ldc + j] = sum_k a[r * kp + k] * b[j][k] for r < rows, j < nblocks * 16 (a: uint8 rows
// of kp bytes, kp % 4 == 0; b: packed weights).
void gemm_u8s8(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t nblocks,
               int32_t* c, int64_t ldc);
#if defined(__x86_64__)
void gemm_u8s8_avx2(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                    int64_t nblocks, int32_t* c, int64_t ldc);
void gemm_u8s8_avx512(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b,
                      int64_t nblocks, int32_t* c, int64_t ldc);
void requant_row_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                        const Requant& rq, uint8_t* out);
// requant_row in fc mode with rq.fc_m32
void requant_row_fc_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                           const Requant& rq, uint8_t* out);
// requant_row with rq.vec (rq.vec_c0 a multiple of 16 / 8)
void requant_row_vec_avx512(const int32_t* acc, const int32_t* ccoef, int64_t row_add,
                            int64_t n, const Requant& rq, uint8_t* out);
void requant_row_vec_avx2(const int32_t* acc, const int32_t* ccoef, int64_t row_add, int64_t n,
                          const Requant& rq, uint8_t* out);
// dst[i] = src[i] ^ flip for i < n, 64 bytes at a time (the contiguous rows of a 1x1
// convolution's `a` panel)
void xor_copy_avx512(uint8_t* dst, const uint8_t* src, int64_t n, uint8_t flip);
// GEMM with the requantization fused (rq.vec, vec_c0 == 0): rows of `a`, out rows of n bytes,
// the channels of blocks [blk0, blk1) of 16 (b: all the packed weights); rowsum: per row term
// (nullptr: none)
void gemm_rq_avx512(const uint8_t* a, int64_t rows, int64_t kp, const int8_t* b, int64_t n,
                    int64_t blk0, int64_t blk1, const int32_t* ccoef, const int64_t* rowsum,
                    const Requant& rq, uint8_t* out);
#endif

struct ConvGeom {
  int64_t batch, ih, iw, cin, oh, ow, kh, kw;
  int64_t sh, sw, dh, dw, pad_top, pad_left;
};

struct ConvParams {
  ConvGeom g;
  int64_t cout, k, kp;
  bool x_signed;                   // int8 input (a = x ^ 0x80) or uint8 (a = x)
  uint8_t pad_code;                // the `a` value of a padding tap (the zero point's code)
  int32_t rcoef;                   // coefficient of rowsum(a)
};

// The whole convolution (im2col into row tiles, GEMM, requantization); x: NHWC 8-bit,
// out: NHWC 8-bit, ccoef: per-output-channel constant terms.
void conv_u8s8(const ConvParams& p, const uint8_t* x, const int8_t* packed,
               const int32_t* ccoef, const Requant& rq, uint8_t* out, int threads);

}  // namespace quant
}  // namespace onert_neon
