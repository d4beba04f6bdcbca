// Module _core: what the CPU offers and the byte copy of the reshape family.
#include <pybind11/pybind11.h>

#include <thread>

#include "bind_util.h"
#include "copy.h"

namespace py = pybind11;
using namespace onert_neon;

PYBIND11_MODULE(_core, m) {
  m.doc() = "acl_neon native core: ISA detection and byte copies";
  add_isa_functions(m);
  m.def("hardware_threads", [] { return static_cast<int>(std::thread::hardware_concurrency()); });
  m.def("copy", [](py::array src, py::array dst, int threads) {
    if (src.nbytes() != dst.nbytes())
      throw py::value_error("copy: source and destination sizes differ");
    if (!(src.flags() & py::array::c_style) || !(dst.flags() & py::array::c_style))
      throw py::value_error("copy: arrays must be C-contiguous");
    if (!dst.writeable()) throw py::value_error("copy: destination is read-only");
    const void* s = src.data();
    void* d = dst.mutable_data();
    int64_t n = src.nbytes();
    py::gil_scoped_release release;
    copy_bytes(s, d, n, threads);
  }, py::arg("src"), py::arg("dst"), py::arg("threads") = 1);
}
