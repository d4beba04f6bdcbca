#include "isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace onert_neon {
namespace {

Isa probe() {
#if defined(__aarch64__)
  return Isa::Neon;
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512vnni");
  return avx512 ? Isa::Avx512 : avx2 ? Isa::Avx2 : Isa::Baseline;
#else
  return Isa::Baseline;
#endif
}

bool parse(const char* name, Isa* out) {
  static const struct { const char* name; Isa isa; } names[] = {
      {"baseline", Isa::Baseline}, {"avx2", Isa::Avx2}, {"avx512", Isa::Avx512},
      {"neon", Isa::Neon}};
  for (const auto& n : names)
    if (std::strcmp(name, n.name) == 0) { *out = n.isa; return true; }
  return false;
}

bool usable(Isa isa, Isa best) {
  if (best == Isa::Neon) return isa == Isa::Neon;
  return isa != Isa::Neon && static_cast<int>(isa) <= static_cast<int>(best);
}

std::atomic<int>& cap() {
  static std::atomic<int> value([] {
    Isa best = detected_isa(), wanted;
    const char* env = std::getenv("ONERT_NEON_ISA");
    if (env && parse(env, &wanted) && usable(wanted, best)) return static_cast<int>(wanted);
    return static_cast<int>(best);
  }());
  return value;
}

}  // namespace

Isa detected_isa() {
  static const Isa best = probe();
  return best;
}

Isa active_isa() { return static_cast<Isa>(cap().load(std::memory_order_relaxed)); }

bool set_isa(const char* name) {
  Isa wanted;
  if (!parse(name, &wanted) || !usable(wanted, detected_isa())) return false;
  cap().store(static_cast<int>(wanted));
  return true;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Baseline: return "baseline";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
    case Isa::Neon: return "neon";
  }
  return "?";
}

int available_isas(Isa* out) {
  Isa best = detected_isa();
  if (best == Isa::Neon) { out[0] = Isa::Neon; return 1; }
  int n = 0;
  for (int i = 0; i <= static_cast<int>(best); ++i) out[n++] = static_cast<Isa>(i);
  return n;
}

}  // namespace onert_neon
