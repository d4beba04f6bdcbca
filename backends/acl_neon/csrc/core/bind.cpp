// Module _core: what the CPU offers and the byte copy of the reshape family (a plan bound to
// the tensors' slots: plan.bind(src, dst, threads) is its native step, native_step.h).
#include <pybind11/pybind11.h>

#include <thread>

#include "bind_util.h"
#include "copy.h"
#include "native_bind.h"

namespace py = pybind11;
using namespace onert_neon;
using namespace onert_rt;

namespace {

// dst[0:nbytes] = src[0:nbytes] (RESHAPE, SQUEEZE, EXPAND_DIMS: the bytes move unchanged).
struct BytesPlan {
  int64_t nbytes;
  explicit BytesPlan(int64_t n) : nbytes(n) {
    if (n < 0) throw py::value_error("copy: negative size");
  }
  void exec(const Slot* src, const Slot* dst, int threads) const {
    const char* s = in<char>(src, nbytes, "copy source");
    char* d = out<char>(dst, nbytes, "copy destination");
    if (nbytes > 0 && s != d) copy_bytes(s, d, nbytes, threads);
  }
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "acl_neon native core: ISA detection and byte copies";
  add_isa_functions(m);
  m.def("hardware_threads", [] { return static_cast<int>(std::thread::hardware_concurrency()); });
  py::class_<BytesPlan>(m, "BytesPlan")
      .def(py::init<int64_t>(), py::arg("nbytes"))
      .def("bind", &bind_plan<BytesPlan, 2>, "bind(src, dst, threads)");
}
