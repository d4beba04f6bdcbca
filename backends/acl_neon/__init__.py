"""acl_neon: the native SIMD backend (C++17 kernels bound with pybind11, NEON on aarch64,
AVX2/AVX-512 on x86-64 chosen at run time)."""
