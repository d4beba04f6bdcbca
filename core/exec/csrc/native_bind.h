// pybind11 side of native steps (native_step.h): slots and steps as capsules.
#pragma once

#include <pybind11/pybind11.h>

#include <utility>
#include <vector>

#include "native_step.h"

namespace onert_rt {
namespace py = pybind11;

// The Slot a capsule made by core/exec/native.py holds (TypeError for anything else).
inline Slot* slot_of(py::handle h) {
  if (!PyCapsule_IsValid(h.ptr(), kSlotCapsule))
    throw py::type_error("expected a tensor slot (core.exec.native.slot_of)");
  return static_cast<Slot*>(PyCapsule_GetPointer(h.ptr(), kSlotCapsule));
}

inline Step* step_of(py::handle h) {
  if (!PyCapsule_IsValid(h.ptr(), kStepCapsule))
    throw py::type_error("expected a native step");
  return static_cast<Step*>(PyCapsule_GetPointer(h.ptr(), kStepCapsule));
}

template <class F>
class FunctionStep final : public Step {
 public:
  FunctionStep(F f, std::vector<py::object> keep) : f_(std::move(f)), keep_(std::move(keep)) {}
  void run() override { f_(); }

 private:
  F f_;
  std::vector<py::object> keep_;    // what the step points into: plan, slots (released with
                                    // the capsule, under the GIL)
};

// A step capsule running `f()`; `keep` are the Python objects f points into.
template <class F>
py::capsule make_step(F f, std::vector<py::object> keep) {
  Step* s = new FunctionStep<F>(std::move(f), std::move(keep));
  PyObject* cap = PyCapsule_New(static_cast<void*>(s), kStepCapsule, [](PyObject* c) {
    delete static_cast<Step*>(PyCapsule_GetPointer(c, kStepCapsule));
  });
  if (cap == nullptr) {
    delete s;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

}  // namespace onert_rt
