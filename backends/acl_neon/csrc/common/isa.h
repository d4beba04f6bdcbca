// Run-time choice of the instruction set the acl_neon kernels use.
//
// Kernels are compiled for the baseline ISA, plus `*_avx2.cpp` / `*_avx512.cpp` variants on
// x86-64 (compiled with those flags, called only after this check) and NEON on aarch64 (part
// of the baseline there). `active_isa()` is the best the CPU has, capped by the environment
// variable ONERT_NEON_ISA or by set_isa() (tests run every kernel at every level the CPU has).
#pragma once

namespace onert_neon {

enum class Isa : int { Baseline = 0, Avx2 = 1, Avx512 = 2, Neon = 3 };

Isa detected_isa();                 // the best level this CPU supports
Isa active_isa();                   // what kernels dispatch on now
bool set_isa(const char* name);     // cap the level; false if unknown or not supported here
const char* isa_name(Isa isa);
int available_isas(Isa* out);       // the levels usable here, lowest first; returns the count

}  // namespace onert_neon
