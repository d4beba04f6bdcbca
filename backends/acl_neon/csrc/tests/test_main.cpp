// Runs every registered kernel test at every instruction set level this CPU supports.
#include <cstdio>

#include "isa.h"
#include "testing.h"

namespace neon_test {
std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}
int failures = 0;
}  // namespace neon_test

int main() {
  using namespace onert_neon;
  Isa levels[4];
  int n = available_isas(levels);
  int run = 0;
  for (int i = 0; i < n; ++i) {
    set_isa(isa_name(levels[i]));
    for (const auto& c : neon_test::cases()) {
      int before = neon_test::failures;
      c.fn();
      ++run;
      std::printf("%-6s %-8s %s\n", neon_test::failures == before ? "ok" : "FAIL",
                  isa_name(levels[i]), c.name);
    }
  }
  std::printf("%d test runs, %d failed checks\n", run, neon_test::failures);
  return neon_test::failures == 0 ? 0 : 1;
}
