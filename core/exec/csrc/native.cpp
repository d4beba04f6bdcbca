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


// ---- control flow: a child subgraph's native steps run inside a builtin op's step ----

// A child subgraph's static run as native steps; a failure names the child's op.
struct Body {
  std::vector<Step*> steps;
  std::vector<std::string> labels;
  std::vector<Slot*> in, out;     // the child's input and output tensors' slots

  void run() const {
    for (size_t k = 0; k < steps.size(); ++k) {
      try {
        steps[k]->run();
      } catch (const std::exception& e) {
        throw StepError(labels[k] + ": " + e.what());
      }
    }
  }
};

Body make_body(py::list in, py::list out, py::list steps, std::vector<std::string> labels,
               std::vector<py::object>& keep) {
  if (steps.size() != labels.size()) throw py::value_error("one label per step");
  Body b;
  for (auto h : steps) {
    b.steps.push_back(step_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  for (auto h : in) {
    b.in.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  for (auto h : out) {
    b.out.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  b.labels = std::move(labels);
  return b;
}

// The child I/O slots a call points at the caller's buffers, put back as they were when the
// call ends (also on a failure): the Python side never sees the borrowed pointers. The
// slots' owners (the references keeping their own buffers alive) are left untouched.
class Borrowed {
 public:
  explicit Borrowed(const std::vector<const Body*>& bodies) {
    for (const Body* b : bodies)
      for (const auto* v : {&b->in, &b->out})
        for (Slot* s : *v) saved_.push_back({s, *s});
  }
  ~Borrowed() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      it->first->data = it->second.data;
      it->first->nbytes = it->second.nbytes;
      it->first->writeable = it->second.writeable;
    }
  }
  static void point(Slot* s, const Slot* at) {
    s->data = at->data;
    s->nbytes = at->nbytes;
    s->writeable = at->writeable;
  }

 private:
  std::vector<std::pair<Slot*, Slot>> saved_;
};

std::vector<Slot*> slots(py::list l, std::vector<py::object>& keep) {
  std::vector<Slot*> v;
  for (auto h : l) {
    v.push_back(slot_of(h));
    keep.push_back(py::reinterpret_borrow<py::object>(h));
  }
  return v;
}

bool truth(const Slot* s, const char* what) { return *in<uint8_t>(s, 1, what) != 0; }

// IF: the branch chosen by cond (a bool) runs on the op's inputs, into the op's outputs.
// branches = [(inputs, outputs, steps, labels)] for else, then.
py::capsule if_step(py::object cond, py::list ins, py::list outs, py::tuple else_b,
                    py::tuple then_b) {
  std::vector<py::object> keep{cond};
  Slot* c = slot_of(cond);
  std::vector<Slot*> in_s = slots(ins, keep), out_s = slots(outs, keep);
  Body br[2];
  const py::tuple* spec[2] = {&else_b, &then_b};
  for (int k = 0; k < 2; ++k) {
    const py::tuple& t = *spec[k];
    br[k] = make_body(t[0], t[1], t[2], t[3].cast<std::vector<std::string>>(), keep);
    if (br[k].in.size() != in_s.size() || br[k].out.size() != out_s.size())
      throw py::value_error("if: a branch's inputs and outputs must match the op's");
  }
  return make_step(
      [c, in_s, out_s, br] {
        const Body& b = br[truth(c, "IF condition") ? 1 : 0];
        Borrowed keep_slots({&b});
        for (size_t k = 0; k < in_s.size(); ++k) Borrowed::point(b.in[k], in_s[k]);
        for (size_t k = 0; k < out_s.size(); ++k) Borrowed::point(b.out[k], out_s[k]);
        b.run();
      },
      std::move(keep));
}

// WHILE: the loop variables start as the op's inputs; cond (its one bool output lands in
// `flag`) decides, body writes the next values. Values alternate between the op's outputs
// and `scratch` (swapped, never copied back and forth); the last ones end in the outputs.
py::capsule while_step(py::list ins, py::list outs, py::list scratch,
                       std::vector<int64_t> nbytes, py::object flag, py::tuple cond_b,
                       py::tuple body_b, int64_t max_iterations, std::string too_many) {
  std::vector<py::object> keep{flag};
  std::vector<Slot*> in_s = slots(ins, keep), out_s = slots(outs, keep),
                     tmp_s = slots(scratch, keep);
  Slot* f = slot_of(flag);
  Body cond = make_body(cond_b[0], cond_b[1], cond_b[2],
                        cond_b[3].cast<std::vector<std::string>>(), keep);
  Body body = make_body(body_b[0], body_b[1], body_b[2],
                        body_b[3].cast<std::vector<std::string>>(), keep);
  const size_t n = in_s.size();
  if (out_s.size() != n || tmp_s.size() != n || nbytes.size() != n || cond.in.size() != n ||
      cond.out.size() != 1 || body.in.size() != n || body.out.size() != n)
    throw py::value_error("while: loop variables, cond and body do not match");
  return make_step(
      [in_s, out_s, tmp_s, nbytes, f, cond, body, max_iterations, too_many] {
        const size_t n = in_s.size();
        Borrowed keep_slots({&cond, &body});
        for (size_t k = 0; k < n; ++k) {
          in<char>(in_s[k], nbytes[k], "WHILE input");
          out<char>(out_s[k], nbytes[k], "WHILE output");
          out<char>(tmp_s[k], nbytes[k], "WHILE loop buffer");
        }
        Borrowed::point(cond.out[0], f);
        std::vector<Slot*> cur = in_s, next = out_s, spare = tmp_s;
        int64_t it = 0;
        for (;; ++it) {
          for (size_t k = 0; k < n; ++k) Borrowed::point(cond.in[k], cur[k]);
          cond.run();
          if (!truth(f, "WHILE condition")) break;
          if (it >= max_iterations) throw StepError(too_many);
          for (size_t k = 0; k < n; ++k) {
            Borrowed::point(body.in[k], cur[k]);
            Borrowed::point(body.out[k], next[k]);
          }
          body.run();
          // the values just written are current; the buffers read become free (the op's
          // inputs are never written: after the first pass the scratch takes their place)
          std::vector<Slot*> was = cur;
          cur = next;
          next = it == 0 ? spare : was;
        }
        for (size_t k = 0; k < n; ++k)
          if (cur[k] != out_s[k] && nbytes[k])
            std::memcpy(out_s[k]->data, cur[k]->data, static_cast<size_t>(nbytes[k]));
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
  m.def("if_step", &if_step, "IF: the chosen branch's native steps on the op's tensors");
  m.def("while_step", &while_step, "WHILE: the loop over cond's and body's native steps");
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
