// Vectorized float math over the acl_neon vector layer: include after the ISA's simd_*.h
// (simd_base.h, simd_avx2.h or simd_avx512.h). exp, expm1, log, tanh, logistic, erfc: errors of
// a few ulp (Cephes-style range reduction and polynomials), far inside the op suite's
// tolerances; NaN and +-Inf give what the libm functions give. Also the clamp, the in-order
// horizontal sum and hard-swish.
#pragma once

#include <cmath>   // INFINITY, NAN

namespace onert_neon {
namespace simd {
namespace {

// min(hi, max(lo, v)); NaN stays NaN (the max/min return their second operand on NaN)
inline V vclamp(V v, V lo, V hi) { return vmin(hi, vmax(lo, v)); }

// lane 0 + lane 1 + ... in order (the sum a scalar loop over the lanes gives)
inline float hsum_ordered(V v) {
  float t[W];
  store(t, v);
  float s = 0.0f;
  for (int k = 0; k < W; ++k) s += t[k];
  return s;
}

inline V poly(V x, const float* c, int n) {   // c[0] x^(n-1) + ... + c[n-1]
  V r = set1(c[0]);
  for (int i = 1; i < n; ++i) r = fmadd(r, x, set1(c[i]));
  return r;
}

// exp(x): n = round(x log2 e), r = x - n ln 2 (two parts), exp(r) by a degree-7 polynomial,
// scaled by 2^n with one rounding (so results near FLT_MAX and subnormals come out right).
inline V vexp(V x) {
  static const float P[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  V xc = vmin(set1(89.0f), vmax(set1(-104.0f), x));   // NaN stays NaN
  V n = vround(mul(xc, set1(1.44269504088896341f)));
  V r = fmadd(n, set1(-0.693359375f), xc);
  r = fmadd(n, set1(2.12194440e-4f), r);
  V p = fmadd(mul(poly(r, P, 6), r), r, add(r, set1(1.0f)));
  return vldexp(p, n);
}

// exp(x) - 1, accurate near 0 (a Taylor polynomial for |x| < 0.5)
inline V vexpm1(V x) {
  static const float T[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f};
  V small = fmadd(mul(poly(x, T, 6), x), x, x);
  return select(lt(vabs(x), set1(0.5f)), small, sub(vexp(x), set1(1.0f)));
}

// natural log: x = m 2^e with m in [sqrt(1/2), sqrt 2), log(m) by Cephes' degree-9 polynomial
inline V vlog(V x) {
  static const float P[] = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f,
                            -1.2420140846e-1f, 1.4249322787e-1f, -1.6668057665e-1f,
                            2.0000714765e-1f, -2.4999993993e-1f, 3.3333331174e-1f};
  const float kMinNormal = 1.17549435e-38f;
  M sub_n = lt(x, set1(kMinNormal));
  V xs = select(sub_n, mul(x, set1(8388608.0f)), x);       // subnormals: scale by 2^23
  V m, e;
  split_exp(xs, m, e);
  e = select(sub_n, sub(e, set1(23.0f)), e);
  M lo = lt(m, set1(0.707106781186547524f));
  e = select(lo, sub(e, set1(1.0f)), e);
  m = select(lo, add(m, m), m);
  V f = sub(m, set1(1.0f));
  V z = mul(f, f);
  V y = mul(mul(poly(f, P, 9), f), z);
  y = fmadd(e, set1(-2.12194440e-4f), y);
  y = fmadd(z, set1(-0.5f), y);
  V r = add(f, y);
  r = fmadd(e, set1(0.693359375f), r);
  const float inf = INFINITY;
  r = select(eq(x, set1(inf)), x, r);                       // +inf
  r = select(eq(x, set1(0.0f)), set1(-inf), r);             // +-0
  r = select(lt(x, set1(0.0f)), set1(NAN), r);              // negative
  return select(ne(x, x), x, r);                            // NaN
}

// tanh: an odd polynomial below 0.625, else 1 - 2 / (exp(2|x|) + 1) with x's sign
inline V vtanh(V x) {
  static const float P[] = {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f,
                            1.33314422036e-1f, -3.33332819422e-1f};
  V a = vabs(x);
  V z = mul(x, x);
  V small = fmadd(mul(poly(z, P, 5), z), x, x);
  V big = sub(set1(1.0f), div(set1(2.0f), add(vexp(add(a, a)), set1(1.0f))));
  big = vor(big, vsign_of(x));
  return select(lt(a, set1(0.625f)), small, big);
}

// logistic(x) = 1 / (1 + exp(-x)), x clamped to [-87, 87] first: exp(-x) is then a normal
// float and so is the result (arithmetic on subnormals takes a microcode assist on x86, which
// had made this function 3x slower where large activations are common: EfficientNet-B0's
// later layers on random inputs). Beyond the clamp the result is 1 (x > 87) or the logistic of
// -87, 1.6e-38 (x < -87, -inf included; less than 1.7e-38 from the true value). exp(-x): vexp's
// range reduction with n = round(-x log2 e) and r' = x + n ln 2 (the negation folded into the
// constants), exp(-r') = 1 - r' + r'^2 q(-r') with q a degree-3 least-squares fit of relative
// error 1.1e-7 on |r'| <= ln 2 / 2, evaluated as (c2 - c3 r') + r'^2 (c4 - c5 r') (Estrin: the
// multiply-add port bounds this function on AVX-512, and this takes 3 of its operations fewer
// than vexp's degree-7 Horner chain). The swish pass (y * logistic(y)) 16 -> 13 cycles a
// vector on Zen 4. At most 4 ulp from the definition on [-87, 87] (native test
// unary_logistic_ulp); NaN stays NaN.
inline V vlogistic(V x) {
  V xc = vmin(set1(87.0f), vmax(set1(-87.0f), x));        // NaN stays NaN
  V n = vround(mul(xc, set1(-1.44269504088896341f)));
  V r = fmadd(n, set1(0.693359375f), xc);                 // -(-x - n ln 2), in two parts
  r = fmadd(n, set1(-2.12194440e-4f), r);
  V r2 = mul(r, r);
  V lo = fmadd(set1(-1.666711420e-01f), r, set1(4.999923110e-01f));
  V hi = fmadd(set1(-8.312533610e-03f), r, set1(4.189012572e-02f));
  V e = vldexp(fmadd(fmadd(hi, r2, lo), r2, sub(set1(1.0f), r)), n);
  return div(set1(1.0f), add(e, set1(1.0f)));
}

// x * relu6(x + 3) / 6 (TFLite's float HARD_SWISH)
inline V vhard_swish(V x) {
  V r = vmin(set1(6.0f), vmax(set1(0.0f), add(x, set1(3.0f))));
  return mul(mul(x, r), set1(1.0f / 6.0f));
}

// erfc(z) (Numerical Recipes' Chebyshev fit, fractional error < 1.2e-7)
inline V verfc(V z) {
  static const float C[] = {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                            -0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f};
  V a = vabs(z);
  V t = div(set1(1.0f), fmadd(a, set1(0.5f), set1(1.0f)));
  V r = mul(t, vexp(sub(poly(t, C, 10), mul(a, a))));
  return select(ge(z, set1(0.0f)), r, sub(set1(2.0f), r));
}

}  // namespace
}  // namespace simd
}  // namespace onert_neon
