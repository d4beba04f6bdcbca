// A minimal test harness for the kernel library (no Python): runs natively and under
// qemu-aarch64. NEON_TEST(name) { CHECK(...); } registers a test; test_main.cpp runs every
// test once per instruction set the CPU has.
#pragma once

#include <cmath>
#include <cstdio>
#include <vector>

namespace neon_test {

struct Case { const char* name; void (*fn)(); };
std::vector<Case>& cases();
extern int failures;

struct Registrar {
  Registrar(const char* name, void (*fn)()) { cases().push_back({name, fn}); }
};

}  // namespace neon_test

#define NEON_TEST(name)                                              \
  static void name();                                                \
  static neon_test::Registrar registrar_##name(#name, name);         \
  static void name()

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);          \
      ++neon_test::failures;                                                          \
    }                                                                                 \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                          \
  do {                                                                                 \
    double a_ = (a), b_ = (b);                                                         \
    if (!(std::fabs(a_ - b_) <= (tol) * (1.0 + std::fabs(b_)))) {                      \
      std::printf("  %s:%d: %s = %g, expected %s = %g\n", __FILE__, __LINE__, #a, a_,  \
                  #b, b_);                                                             \
      ++neon_test::failures;                                                           \
    }                                                                                  \
  } while (0)
