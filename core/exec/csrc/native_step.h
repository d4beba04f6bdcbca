// Native steps: a kernel's run bound once to its tensors, so that a run passes no arrays.
//
// A `Slot` is one tensor's current buffer as native code sees it. Python keeps it in a capsule
// on the HostTensor (core/exec/native.py) and updates it whenever the tensor's buffer changes
// (HostTensor.set_buffer), so a step bound to the slot follows the tensor: a user's input
// bound for one run, a buffer re-planned after set_input_shape.
//
// A `Step` is a kernel's prepared computation over slots. Kernel modules build steps with
// `make_step` (native_bind.h) and hand them to Python as capsules; the segment runner
// (core/exec/csrc/native.cpp) calls a run of consecutive steps with the GIL released. Steps
// check each operand's slot when they run (bound, large enough, writeable for outputs): a
// stale or missing buffer is a StepError naming the operand, never a wild read or write.
//
// Only the C++ ABI is shared between modules (a virtual call, std::exception): no pybind11
// types cross module boundaries.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace onert_rt {

struct Slot {
  char* data = nullptr;       // the buffer's first byte (nullptr: nothing bound)
  int64_t nbytes = 0;
  bool writeable = false;
  void* owner = nullptr;      // the Python object holding the bytes (a strong reference)
};

constexpr const char* kSlotCapsule = "onert_py.native.Slot";
constexpr const char* kStepCapsule = "onert_py.native.Step";

// A failure a step detects when it runs; the runner reports it with the op that failed.
class StepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_slot(const Slot* s, int64_t bytes, const char* what) {
  if (bytes <= 0) return;
  if (s->data == nullptr) throw StepError(std::string(what) + ": no buffer is bound");
  if (s->nbytes < bytes)
    throw StepError(std::string(what) + ": buffer of " + std::to_string(s->nbytes) +
                    " bytes, the kernel needs " + std::to_string(bytes));
}

// The slot's buffer read as `count` elements of T.
template <class T>
const T* in(const Slot* s, int64_t count, const char* what) {
  check_slot(s, count * static_cast<int64_t>(sizeof(T)), what);
  return reinterpret_cast<const T*>(s->data);
}

// The slot's buffer written as `count` elements of T (a read-only buffer is an error).
template <class T>
T* out(const Slot* s, int64_t count, const char* what) {
  check_slot(s, count * static_cast<int64_t>(sizeof(T)), what);
  if (count > 0 && !s->writeable) throw StepError(std::string(what) + ": buffer is read-only");
  return reinterpret_cast<T*>(s->data);
}

struct Step {
  virtual ~Step() = default;
  virtual void run() = 0;      // may throw (StepError or any std::exception)
};

}  // namespace onert_rt
