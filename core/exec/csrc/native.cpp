// Module onert_py.core.exec._native: tensor slots, the native segment runner and the builtin
// backend's native steps (host-to-host copies).
//
// A Segment holds the native steps of consecutive ops (native_step.h) and runs them in one
// call with the GIL released, without Python between them. run() returns -1, or the position
// of the step that failed (its message in `error`), so that Python names the op. run_traced()
// also returns each step's begin and end on CLOCK_MONOTONIC in nanoseconds, the clock of
// Python's time.perf_counter_ns on Linux, so traces keep one event per op.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <time.h>

#include <cstring>
#include <string>
#include <vector>

#include "native_bind.h"

namespace py = pybind11;
using namespace onert_rt;

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void slot_destroy(PyObject* cap) {
  Slot* s = static_cast<Slot*>(PyCapsule_GetPointer(cap, kSlotCapsule));
  Py_XDECREF(static_cast<PyObject*>(s->owner));
  delete s;
}

// Point the slot at `array` (None: nothing). A buffer that is not C-contiguous is not bound:
// native steps then fail cleanly on it; Python kernels still see the array.
void set_slot(py::handle cap, py::handle array) {
  Slot* s = slot_of(cap);
  PyObject* old = static_cast<PyObject*>(s->owner);
  s->data = nullptr;
  s->nbytes = 0;
  s->writeable = false;
  s->owner = nullptr;
  if (!array.is_none()) {
    if (!py::isinstance<py::array>(array)) {
      Py_XDECREF(old);
      throw py::type_error("a tensor buffer must be a numpy array");
    }
    auto a = py::reinterpret_borrow<py::array>(array);
    if (a.flags() & py::array::c_style) {
      s->data = static_cast<char*>(const_cast<void*>(a.data()));
      s->nbytes = static_cast<int64_t>(a.nbytes());
      s->writeable = a.writeable();
      s->owner = array.ptr();
      Py_INCREF(array.ptr());
    }
  }
  Py_XDECREF(old);
}

py::capsule new_slot(py::handle array) {
  Slot* s = new Slot();
  PyObject* cap = PyCapsule_New(static_cast<void*>(s), kSlotCapsule, slot_destroy);
  if (cap == nullptr) {
    delete s;
    throw py::error_already_set();
  }
  auto out = py::reinterpret_steal<py::capsule>(cap);
  set_slot(out, array);
  return out;
}

class Segment {
 public:
  explicit Segment(py::list steps) : keep_(steps) {
    for (auto h : steps) steps_.push_back(step_of(h));
  }

  // -1, or the position of the failing step (its message in `error`)
  int run() {
    int failed = -1;
    {
      py::gil_scoped_release release;
      failed = run_from(nullptr);
    }
    return failed;
  }

  // (-1 or the failing position, [begin0, end0, begin1, end1, ...] ns of the steps that ran)
  py::tuple run_traced() {
    std::vector<int64_t> times;
    times.reserve(2 * steps_.size());
    int failed = -1;
    {
      py::gil_scoped_release release;
      failed = run_from(&times);
    }
    return py::make_tuple(failed, times);
  }

  size_t size() const { return steps_.size(); }
  const std::string& error() const { return error_; }

  // Session.run's fast path for a subgraph that is this one segment: point the input and
  // output slots at `arrays` and `outs`, run with the GIL released, unbind them again (the
  // user's arrays are not kept). -1 or the failing position, as run().
  int run_io(py::list in_slots, py::list arrays, py::list out_slots, py::list outs) {
    if (in_slots.size() != arrays.size() || out_slots.size() != outs.size())
      throw py::value_error("run_io: one array per slot");
    const size_t ni = in_slots.size(), no = out_slots.size();
    for (size_t i = 0; i < ni; ++i) set_slot(in_slots[i], arrays[i]);
    for (size_t i = 0; i < no; ++i) set_slot(out_slots[i], outs[i]);
    int failed = run();
    for (size_t i = 0; i < ni; ++i) set_slot(in_slots[i], py::none());
    for (size_t i = 0; i < no; ++i) set_slot(out_slots[i], py::none());
    return failed;
  }

 private:
  int run_from(std::vector<int64_t>* times) {
    const int n = static_cast<int>(steps_.size());
    for (int k = 0; k < n; ++k) {
      if (times) times->push_back(now_ns());
      try {
        steps_[k]->run();
      } catch (const std::exception& e) {
        error_ = e.what();
        if (times) times->push_back(now_ns());
        return k;
      } catch (...) {
        error_ = "unknown native exception";
        if (times) times->push_back(now_ns());
        return k;
      }
      if (times) times->push_back(now_ns());
    }
    return -1;
  }

  std::vector<Step*> steps_;
  py::list keep_;
  std::string error_;
};

// Copy all of src's bytes to dst (same size: Permute between host tensors of one dtype).
py::capsule copy_step(py::object src, py::object dst, int64_t nbytes) {
  if (nbytes < 0) throw py::value_error("copy: negative size");
  Slot* s = slot_of(src);
  Slot* d = slot_of(dst);
  return make_step(
      [s, d, nbytes] {
        const char* a = in<char>(s, nbytes, "copy source");
        char* b = out<char>(d, nbytes, "copy destination");
        if (nbytes && a != b) std::memcpy(b, a, static_cast<size_t>(nbytes));
      },
      {src, dst});
}

// Write `data` (a few bytes, e.g. a resource id) into dst at every run: VAR_HANDLE.
py::capsule const_step(py::object dst, py::bytes data) {
  Slot* d = slot_of(dst);
  std::string bytes = data;
  return make_step(
      [d, bytes] {
        const int64_t n = static_cast<int64_t>(bytes.size());
        std::memcpy(out<char>(d, n, "handle output"), bytes.data(), bytes.size());
      },
      {dst});
}

// The size check of a variable's storage against what the op reads or writes.
void check_variable(const Slot* var, int64_t nbytes, const std::string& name) {
  if (var->nbytes != nbytes)
    throw StepError(name + " holds " + std::to_string(var->nbytes) + " bytes, the op uses " +
                    std::to_string(nbytes));
}

// READ_VARIABLE: the variable's value (its storage, assigned when flag[0] != 0) into out.
py::capsule variable_read_step(py::object var, py::object flag, py::object dst, int64_t nbytes,
                               std::string name, std::string unset) {
  Slot* v = slot_of(var);
  Slot* f = slot_of(flag);
  Slot* d = slot_of(dst);
  return make_step(
      [v, f, d, nbytes, name, unset] {
        if (!*in<uint8_t>(f, 1, "variable flag")) throw StepError(unset);
        check_variable(v, nbytes, name);
        std::memcpy(out<char>(d, nbytes, "READ_VARIABLE output"), in<char>(v, nbytes, name.c_str()),
                    static_cast<size_t>(nbytes));
      },
      {var, flag, dst});
}

// ASSIGN_VARIABLE: src into the variable's storage, which then counts as assigned.
py::capsule variable_assign_step(py::object var, py::object flag, py::object src,
                                 int64_t nbytes, std::string name) {
  Slot* v = slot_of(var);
  Slot* f = slot_of(flag);
  Slot* s = slot_of(src);
  return make_step(
      [v, f, s, nbytes, name] {
        check_variable(v, nbytes, name);
        const char* a = in<char>(s, nbytes, "ASSIGN_VARIABLE input");
        char* b = out<char>(v, nbytes, name.c_str());
        if (a != b) std::memmove(b, a, static_cast<size_t>(nbytes));
        *out<uint8_t>(f, 1, "variable flag") = 1;
      },
      {var, flag, src});
}

// One step running `steps` (step capsules, any module's) in order: a kernel made of several
// native plans, e.g. acl_neon's recurrent ops (the input projection, then the time loop).
py::capsule chain(py::list steps) {
  std::vector<Step*> parts;
  std::vector<py::object> keep;
  for (auto h : steps) {
    parts.push_back(step_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  return make_step([parts] { for (Step* p : parts) p->run(); }, std::move(keep));
}

// CALL_ONCE: `steps` (its init subgraph, all native) run while flag[0] is 0, which they set.
py::capsule once_step(py::object flag, py::list steps) {
  Slot* f = slot_of(flag);
  std::vector<Step*> parts;
  std::vector<py::object> keep{flag};
  for (auto h : steps) {
    parts.push_back(step_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  return make_step(
      [f, parts] {
        uint8_t* done = out<uint8_t>(f, 1, "CALL_ONCE flag");
        if (*done) return;
        for (Step* p : parts) p->run();
        *done = 1;
      },
      std::move(keep));
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "onert_py native runtime: tensor slots, segments of native steps";
  m.def("slot", &new_slot, py::arg("array"), "A slot bound to array (or None)");
  m.def("set_slot", &set_slot, "Point a slot at another array (or None)");
  m.def(
      "run_step",
      [](py::handle cap) {
        Step* s = step_of(cap);
        std::string err;
        bool ok = true;
        {
          py::gil_scoped_release release;
          try {
            s->run();
          } catch (const std::exception& e) {
            ok = false;
            err = e.what();
          }
        }
        if (!ok) throw std::runtime_error(err);
      },
      "Run one native step (RuntimeError with its message if it fails)");
  m.def("copy_step", &copy_step, "A step copying nbytes from one slot to another");
  m.def("once_step", &once_step, "CALL_ONCE: steps run once, while a flag is 0");
  m.def("chain", &chain, py::arg("steps"), "One native step running `steps` in order");
  m.def("const_step", &const_step, "A step writing these bytes into a slot");
  m.def("variable_read_step", &variable_read_step, "READ_VARIABLE as a native step");
  m.def("variable_assign_step", &variable_assign_step, "ASSIGN_VARIABLE as a native step");
  m.def("slot_info", [](py::handle cap) {
    Slot* s = slot_of(cap);
    return py::make_tuple(reinterpret_cast<uintptr_t>(s->data), s->nbytes, s->writeable);
  });
  py::class_<Segment>(m, "Segment")
      .def(py::init<py::list>())
      .def("run", &Segment::run)
      .def("run_traced", &Segment::run_traced)
      .def("run_io", &Segment::run_io)
      .def("__len__", &Segment::size)
      .def_property_readonly("error", &Segment::error);
}
