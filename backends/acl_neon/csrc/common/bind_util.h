// Helpers for the pybind11 layer (bind*.cpp files only; kernel files never include Python).
//
// The Python side validates every parameter in configure(); these checks are the last line:
// a buffer of the wrong dtype, size or layout raises ValueError instead of being read or
// written out of bounds.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "isa.h"
#include "native_bind.h"
#include "parallel.h"

namespace onert_neon {
namespace py = pybind11;

template <class T>
T* buffer_of(py::array& a, const char* what, int64_t count, bool write) {
  if (!py::isinstance<py::array_t<T>>(a) || !a.dtype().is(py::dtype::of<T>()))
    throw py::value_error(std::string(what) + ": wrong dtype " +
                          std::string(py::str(a.dtype())));
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(std::string(what) + ": array is not C-contiguous");
  if (a.size() < count)
    throw py::value_error(std::string(what) + ": " + std::to_string(a.size()) +
                          " elements, needs " + std::to_string(count));
  if (!write) return static_cast<T*>(const_cast<void*>(a.data()));   // read through const T*
  if (!a.writeable()) throw py::value_error(std::string(what) + ": array is read-only");
  return static_cast<T*>(a.mutable_data());
}

template <class T>
const T* in_buffer(py::array& a, const char* what, int64_t count) {
  return buffer_of<T>(a, what, count, false);
}

template <class T>
T* out_buffer(py::array& a, const char* what, int64_t count) {
  return buffer_of<T>(a, what, count, true);
}

// plan.bind(slot_0, ..., slot_{N-1}, threads): the native step (core/exec/csrc/native_step.h)
// running plan.exec(slot_0, ..., slot_{N-1}, threads) over those tensors' current buffers.
// The step keeps the plan and the slots alive; exec() checks each buffer when it runs.
template <class Plan, size_t N>
py::capsule bind_plan(py::object self, py::args args) {
  if (args.size() != N + 1)
    throw py::type_error("bind() takes " + std::to_string(N) + " tensor slots and threads");
  const Plan* plan = self.cast<const Plan*>();
  std::array<const onert_rt::Slot*, N> slots;
  std::vector<py::object> keep{self};
  for (size_t i = 0; i < N; ++i) {
    slots[i] = onert_rt::slot_of(args[i]);
    keep.push_back(py::reinterpret_borrow<py::object>(args[i]));
  }
  const int threads = args[N].cast<int>();
  return onert_rt::make_step(
      [plan, slots, threads] {
        std::apply([&](auto... s) { plan->exec(s..., threads); }, slots);
      },
      std::move(keep));
}

// Every kernel module of the package runs its ranges on one worker pool (parallel.h): the
// first module imported publishes its pool as the package attribute `_thread_pool` (a capsule),
// the later ones adopt it.
inline void share_thread_pool(py::module_& m) {
  const std::string name = py::str(m.attr("__name__"));
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return;          // not in a package: the module's own pool
  py::module_ package = py::module_::import(name.substr(0, dot).c_str());
  constexpr const char* kCapsule = "onert_neon.ThreadPoolApi";
  if (py::hasattr(package, "_thread_pool")) {
    py::object cap = package.attr("_thread_pool");
    if (PyCapsule_IsValid(cap.ptr(), kCapsule))
      adopt_thread_pool(static_cast<const ThreadPoolApi*>(PyCapsule_GetPointer(cap.ptr(), kCapsule)));
    return;
  }
  package.attr("_thread_pool") =
      py::capsule(static_cast<const void*>(thread_pool_api()), kCapsule);
}

// set_isa / active_isa / detected_isa / available_isas on every kernel module (and the shared
// worker pool: share_thread_pool)
inline void add_isa_functions(py::module_& m) {
  share_thread_pool(m);
  m.def("set_isa", [](const std::string& name) { return set_isa(name.c_str()); },
        "Cap the instruction set the kernels use; False if unknown or not supported here");
  m.def("active_isa", [] { return std::string(isa_name(active_isa())); });
  m.def("detected_isa", [] { return std::string(isa_name(detected_isa())); });
  m.def("available_isas", [] {
    Isa all[4];
    int n = available_isas(all);
    py::list out;
    for (int i = 0; i < n; ++i) out.append(py::str(isa_name(all[i])));
    return out;
  });
}

}  // namespace onert_neon
