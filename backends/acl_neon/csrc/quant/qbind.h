// Buffer checks of module _quant's bindings (bind.cpp, bind_fixed_point.cpp only): 8-bit data whose
// kernels read bytes whatever the signedness.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>

namespace onert_neon {
namespace quant {

// the bytes of `a`, an array of 1-byte items (int8 or uint8), C-contiguous, of exactly `count`
// items (at least `count` when !exact), writeable when `write`; else ValueError naming `what`
inline uint8_t* bytes_of(pybind11::array& a, const char* what, int64_t count, bool write,
                         bool exact = true) {
  if (a.itemsize() != 1 || !(a.flags() & pybind11::array::c_style))
    throw pybind11::value_error(std::string(what) + ": a contiguous 8-bit array expected");
  if (exact ? a.size() != count : a.size() < count)
    throw pybind11::value_error(std::string(what) + ": " + std::to_string(a.size()) +
                                " items, expected " + (exact ? "" : "at least ") +
                                std::to_string(count));
  if (!write) return static_cast<uint8_t*>(const_cast<void*>(a.data()));
  if (!a.writeable()) throw pybind11::value_error(std::string(what) + ": not writeable");
  return static_cast<uint8_t*>(a.mutable_data());
}

}  // namespace quant
}  // namespace onert_neon
