// Tests of the ggml group (test_main runs them at every ISA level): the fp16 conversions, the
// activations' quantization (halves to even), FULLY_CONNECTED against a plain loop
// over dequantized blocks, threads 1 and 2 (the last shape is large enough to be split), and
// GATHER with an index out of range.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ggml.h"
#include "testing.h"

using namespace onert_neon;

namespace {

const GgmlType kTypes[] = {GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q8_0, GgmlType::Q8_1};

// random blocks: random value bytes, scales of either sign in [1/64, 1/8], minimums in [-1, 1]
std::vector<uint8_t> random_blocks(GgmlType t, int64_t count, std::mt19937& gen) {
  const int bb = ggml_block_bytes(t);
  std::vector<uint8_t> out(static_cast<size_t>(count * bb));
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(1.0f / 64, 1.0f / 8), unit(-1.0f, 1.0f);
  for (auto& b : out) b = static_cast<uint8_t>(byte(gen));
  for (int64_t i = 0; i < count; ++i) {
    const uint16_t d = fp32_to_fp16(byte(gen) & 1 ? scale(gen) : -scale(gen));
    const uint16_t m = fp32_to_fp16(unit(gen));
    std::memcpy(&out[i * bb], &d, 2);
    if (t == GgmlType::Q4_1 || t == GgmlType::Q8_1) std::memcpy(&out[i * bb + 2], &m, 2);
  }
  return out;
}

}  // namespace

NEON_TEST(ggml_fp16_round_trip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;            // NaN payloads
    CHECK(fp32_to_fp16(fp16_to_fp32(static_cast<uint16_t>(h))) == h);
  }
  CHECK(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // tie: to even
  CHECK(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie: to even (up)
  CHECK(fp32_to_fp16(std::ldexp(1.0f, -25)) == 0x0000);             // half the least: even
  CHECK(fp32_to_fp16(std::ldexp(3.0f, -25)) == 0x0002);
  CHECK(fp32_to_fp16(65520.0f) == 0x7C00 && fp32_to_fp16(65519.0f) == 0x7BFF);
  CHECK(fp16_to_fp32(0x0001) == std::ldexp(1.0f, -24) && fp16_to_fp32(0xC000) == -2.0f);
}

NEON_TEST(ggml_quantize_acts) {
  std::vector<float> x(64, 0.0f);
  const float ties[] = {127.0f, 0.5f, -2.5f, 3.5f, -0.5f, 1.5f, 100.5f, -126.5f};
  std::memcpy(x.data(), ties, sizeof ties);
  for (int j = 0; j < 32; ++j) x[32 + j] = 0.01f * static_cast<float>(j - 20);
  GgmlActs acts;
  ggml_quantize_acts(x.data(), 2, 32, GgmlType::Q4_1, acts, 1);    // two rows of one block
  const int8_t want[] = {127, 0, -2, 4, 0, 2, 100, -126};
  for (int j = 0; j < 8; ++j) CHECK(acts.q[j] == want[j]);
  CHECK(acts.d[0] == 1.0f);
  int sum = 0;
  for (int j = 0; j < 32; ++j) sum += acts.q[j];
  CHECK(acts.s8[0] * 8.0f == static_cast<float>(sum));
  const float d = fp16_to_fp32(fp32_to_fp16(0.2f / 127.0f));       // amax 0.2 (j = 0)
  CHECK(acts.d[1] == d && acts.q[32] == -127 && acts.q[32 + 20] == 0);
  ggml_quantize_acts(x.data(), 1, 64, GgmlType::Q4_0, acts, 1);
  CHECK(acts.corr.size() == 2 && acts.corr[0] == -8 * sum && acts.s8.empty());
}

NEON_TEST(ggml_fully_connected) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  for (GgmlType t : kTypes) {
    const int bb = ggml_block_bytes(t);
    // (rows, depth, units): the row tiles (1..4 and a remainder); depth enough for 2 threads
    const int64_t shapes[][3] = {{1, 96, 9}, {2, 96, 9}, {5, 96, 9}, {1, 8192, 64}};
    for (const auto& shape : shapes) {
      const int64_t M = shape[0], K = shape[1], N = shape[2], nb = K / kGgmlBlock;
      const auto w = random_blocks(t, N * nb, gen);
      std::vector<float> x(M * K), bias(N);
      for (auto& v : x) v = val(gen);
      for (auto& v : bias) v = val(gen);
      GgmlActs acts;
      ggml_quantize_acts(x.data(), M, K, t, acts, 1);
      // the reference: block dots of the stored values, as a plain loop
      std::vector<double> want(M * N), mag(M * N);
      std::vector<float> wv(kGgmlBlock);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t b = 0; b < nb; ++b) {
          const uint8_t* blk = &w[(n * nb + b) * bb];
          uint16_t h[2];
          std::memcpy(h, blk, 4);
          const double dw = fp16_to_fp32(h[0]);
          ggml_dequantize(t, blk, 1, wv.data());
          for (int64_t m = 0; m < M; ++m) {
            const int8_t* xq = &acts.q[m * K + b * kGgmlBlock];
            const double dx = acts.d[m * nb + b];
            double sumi = 0;
            for (int j = 0; j < kGgmlBlock; ++j) {
              // the stored value back from the dequantized one (exact: q * d, (q - 8) * d)
              const double q = t == GgmlType::Q4_1 ? (wv[j] - fp16_to_fp32(h[1])) / dw
                                                   : wv[j] / dw;
              sumi += std::round(q) * xq[j];
            }
            double term = sumi * dw * dx;
            if (t == GgmlType::Q4_1) term += fp16_to_fp32(h[1]) * (acts.s8[m * nb + b] * 8.0);
            want[m * N + n] += term;
            mag[m * N + n] += std::fabs(term);
          }
        }
      for (int threads : {1, 2}) {
        std::vector<float> y(M * N, 99.0f);
        GgmlFcArgs a{t, M, K, N, w.data(), &acts, bias.data(), y.data(), -1.5f, INFINITY};
        ggml_fc(a, threads);
        for (int64_t i = 0; i < M * N; ++i) {
          const double v = std::fmax(want[i] + bias[i % N], -1.5);
          CHECK(std::fabs(y[i] - v) <= 1e-5 * (mag[i] + std::fabs(bias[i % N])) + 1e-6);
        }
      }
    }
  }
}

NEON_TEST(ggml_gather) {
  std::mt19937 gen(3);
  for (GgmlType t : kTypes) {
    const int bb = ggml_block_bytes(t);
    const auto params = random_blocks(t, 2 * 5 * 2, gen);    // [outer 2][limit 5][2 blocks]
    const int32_t idx[] = {4, 0, 4};
    std::vector<float> out(2 * 3 * 64, 99.0f), row(64);
    GgmlGatherArgs a{t, params.data(), 1, 2, 5, 3, 2, out.data()};
    CHECK(ggml_gather<int32_t>(a, idx, 2) == -1);
    for (int o = 0; o < 2; ++o)
      for (int i = 0; i < 3; ++i) {
        ggml_dequantize(t, &params[((o * 5 + idx[i]) * 2) * bb], 2, row.data());
        CHECK(std::memcmp(&out[(o * 3 + i) * 64], row.data(), 64 * sizeof(float)) == 0);
      }
    const int64_t bad[] = {1, 5, -1};
    std::vector<float> untouched(out);
    CHECK(ggml_gather<int64_t>(a, bad, 1) == 1);
    CHECK(out == untouched);
  }
}
